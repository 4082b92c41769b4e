/**
 * The request pipeline, its stages in the order of pipeline/stages.ts STAGES:
 * auth → parse → route → limits → cache → hold → adapter (with failover) → settle → render.
 * Every model route runs it with its Endpoint (pipeline/endpoint.ts): chat completions,
 * Responses and embeddings plug in their parse, route, hold, adapter and render; the auth,
 * limits and settle stages are here, once. It runs on plain node:http (http/exchange.ts):
 * the hot path has no Web Request/Response. An error thrown here is rendered by the caller
 * (pipeline/serve.ts, Exchange.fail).
 */
import { resolveAlias } from "../catalog/aliases.js";
import { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { authenticate } from "../http/authenticate.js";
import type { Exchange } from "../http/exchange.js";
import { takeLimit } from "../http/rate-limit.js";
import type { KeyRecord } from "../store/index.js";
import type { Endpoint, Job, Parsed } from "./endpoint.js";
import { withFailover } from "./failover.js";
import { cacheStage } from "./cache-step.js";

export async function runPipeline<Req extends Parsed, Answer>(gw: Gateway, ex: Exchange, ep: Endpoint<Req, Answer>): Promise<void> {
  const key = await authenticate(gw, ex.state, ex.credential(), () => ex.ip); // auth
  const parsed = ep.parse(gw, await ex.body(gw.config.server.maxBodyBytes), key, ex);
  const body = parsed instanceof Promise ? await parsed : parsed;
  const route = await routeStage(gw, ex, ep, key, body);
  const modelTier = gw.config.limits.models[route.model.id]; // limits: the model tier's window
  if (modelTier) await takeLimit(gw, ex.state, "model", `model:${route.model.id}`, modelTier, false);
  const cached = await cacheStage(gw, ex, ep, key, body, route); // cache: a hit is answered here (pipeline/cache-step.ts)
  if (cached.answered) return;
  const job: Job<Req> = { requestId: ex.state.id, keyId: key.id, body, route, bill: await ep.hold(gw, key, route, body, ex.state.id), attempts: [] };
  if (cached.keep) job.keep = cached.keep;
  job.bill.endpoint = ep.name;
  job.bill.observe(ex.state.rec);
  try {
    await (body.stream && ep.stream ? ep.stream(gw, ex, job) : completed(gw, ex, job, ep));
  } catch (err) {
    const status = err instanceof GatewayError ? err.status : 500;
    await job.bill.settle(
      { endpoint: null, usage: null, usageSource: "none", status: ex.signal.aborted ? "cancelled" : "error", httpStatus: status, attempts: job.attempts },
      gw.now(),
    );
    throw err;
  }
}

/** The model id (or an alias) to the catalog's endpoints this account can use (a platform key or its BYOK key), narrowed by the endpoint. */
async function routeStage<Req extends Parsed>(gw: Gateway, ex: Exchange, ep: Endpoint<Req, unknown>, key: KeyRecord, body: Req) {
  const byok = await gw.byok.forAccount(key.account);
  const found = gw.catalog.find(resolveAlias(gw.config.aliases, body.model), (plugin) => byok.get(plugin), ep.vendor);
  if (!found) throw ep.missing(gw, body.model, (plugin) => byok.get(plugin));
  ex.state.rec.model = found.model.id; // a catalog id: never what the client typed (observability/request-record.ts)
  return ep.route(found, body);
}

/** adapter → settle → render for a JSON answer: it leaves only after its charge and ledger row are committed. */
async function completed<Req extends Parsed, Answer>(gw: Gateway, ex: Exchange, job: Job<Req>, ep: Endpoint<Req, Answer>): Promise<void> {
  const { value, endpoint } = await withFailover(gw, ex, job, (e) => ep.adapter(gw, job, e, ex.signal));
  const measured = ep.usage(job, value);
  const usage = measured ?? (await ep.estimate(job, value));
  await job.bill.settle({ endpoint, usage, usageSource: measured ? "provider" : "estimated", status: "ok", httpStatus: 200, attempts: job.attempts }, gw.now());
  const written = ep.render(gw, ex, job, value, usage);
  if (written) await written;
  job.keep?.(value, usage);
}
