/**
 * The request pipeline, its stages in the order of pipeline/stages.ts STAGES:
 * auth → parse → route → cache → limits → hold → adapter (with failover) → settle → render.
 * Every model route runs it with its Endpoint (pipeline/endpoint.ts): chat completions,
 * Responses and embeddings plug in their parse, route, hold, adapter and render; the auth,
 * limits and settle stages are here, once. It runs on plain node:http (http/exchange.ts):
 * the hot path has no Web Request/Response. An error thrown here is rendered by the caller
 * (pipeline/serve.ts, Exchange.fail).
 */
import { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { authenticate } from "../http/authenticate.js";
import type { Exchange } from "../http/exchange.js";
import { takeLimit } from "../http/rate-limit.js";
import { nanoToUsd } from "../core/money.js";
import type { Attempt } from "../store/index.js";
import type { Endpoint, Job, Parsed } from "./endpoint.js";
import { withFailover } from "./failover.js";
import { cachedRepeat, cacheStage, repeatDigest } from "./cache-step.js";
import { routeModels } from "./route-models.js";
import { tagsOf } from "./request-tags.js";
import { guardAnswer, guardRequest } from "./guardrails.js";

export async function runPipeline<Req extends Parsed, Answer>(gw: Gateway, ex: Exchange, ep: Endpoint<Req, Answer>): Promise<void> {
  const key = await authenticate(gw, ex.state, ex.credential(), () => ex.ip); // auth
  const raw = guardRequest(gw, ex.state, key, await ex.body(gw.config.server.maxBodyBytes)); // secrets checked before anything else reads the body
  const digest = repeatDigest(gw, ep, key, raw);
  if (await cachedRepeat(gw, ex, ep, key, digest)) return; // cache: these bytes were answered from it before (pipeline/cache-step.ts)
  const parsed = ep.parse(gw, raw, key, ex);
  const body = parsed instanceof Promise ? await parsed : parsed;
  const tags = tagsOf(ex, ep, body); // a malformed tag is a 400 before any hold (docs/usage.md)
  const routes = await routeModels(gw, ex, ep, key, body);
  // cache: a hit on the first model is answered here (pipeline/cache-step.ts); only its own answer is kept.
  const cached = await cacheStage(gw, ex, ep, key, body, routes[0]!, digest === undefined ? undefined : { digest, bytes: raw.length });
  if (cached.answered) return;
  const attempts: Attempt[] = []; // every model's attempts, on the row of the request
  for (let i = 0; ; i++) {
    const route = routes[i]!;
    ex.state.rec.model = route.model.id; // a catalog id: never what the client typed (observability/request-record.ts)
    const modelTier = gw.config.limits.models[route.model.id]; // limits: the model tier's window
    if (modelTier) await takeLimit(gw, ex.state, "model", `model:${route.model.id}`, modelTier, false);
    const job: Job<Req> = { requestId: ex.state.id, keyId: key.id, body, route, bill: await ep.hold(gw, key, route, body, ex.state.id), attempts };
    job.moreModels = i + 1 < routes.length;
    if (i === 0 && cached.keep) job.keep = cached.keep;
    job.bill.endpoint = ep.name;
    job.bill.tags = tags;
    job.bill.observe(ex.state.rec);
    try {
      return await (body.stream && ep.stream ? ep.stream(gw, ex, job) : completed(gw, ex, job, ep));
    } catch (err) {
      // The next model, while nothing went to the client yet (docs/routing.md): this model's hold is dropped, not billed.
      if (i + 1 < routes.length && movesOn(err, ex)) {
        await job.bill.release();
        continue;
      }
      const status = err instanceof GatewayError ? err.status : 500;
      await job.bill.settle(
        { endpoint: null, usage: null, usageSource: "none", status: ex.signal.aborted ? "cancelled" : "error", httpStatus: status, attempts: job.attempts },
        gw.now(),
      );
      throw err;
    }
  }
}

/** Every endpoint of the model failed (docs/limits.md's 503) and the client has no byte of an answer yet. */
function movesOn(err: unknown, ex: Exchange): boolean {
  return err instanceof GatewayError && err.code === "upstream_unavailable" && !ex.signal.aborted && !ex.started;
}

/** adapter → settle → render for a JSON answer: it leaves only after its charge and ledger row are committed. */
async function completed<Req extends Parsed, Answer>(gw: Gateway, ex: Exchange, job: Job<Req>, ep: Endpoint<Req, Answer>): Promise<void> {
  const { value, endpoint } = await withFailover(gw, ex, job, (e) => ep.adapter(gw, job, e, ex.signal));
  const measured = ep.usage(job, value);
  const usage = measured ?? (await ep.estimate(job, value));
  await job.bill.settle({ endpoint, usage, usageSource: measured ? "provider" : "estimated", status: "ok", httpStatus: 200, attempts: job.attempts }, gw.now());
  ex.state.headers["x-gateway-cost"] = nanoToUsd(job.bill.charged ?? 0); // the row's charge (docs/routing.md)
  guardAnswer(ex.state, value); // settled first: the upstream's tokens are billed whatever the guardrail does
  const written = ep.render(gw, ex, job, value, usage);
  if (written) await written;
  job.keep?.(value, usage);
}
