/**
 * POST /v1/embeddings (contract.md §12), the chat pipeline's steps for another API:
 * auth → validate → route (embedding models only) → narrow to endpoints that take every
 * field → model tier → hold the worst case (an upper bound of the input tokens × the prompt
 * price) → adapter with failover → settle to the reported usage (or an estimate, marked so)
 * → respond. Served on the node:http Exchange like chat (http/exchange.ts): the same body cap,
 * abort signal, error rendering and shutdown accounting.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { holdWorstCase, pricesOf, type Bill } from "../../billing/bill.js";
import { parseJsonBody } from "../../http/body.js";
import type { RoutedEndpoint } from "../../catalog/catalog.js";
import { dropNullFields, isObject } from "../../core/null-fields.js";
import { embedOn, type Embedded } from "./call.js";
import { estimateTokens, inputsOf, inputTokenBound, narrowEmbeddings, type Inputs } from "./input.js";
import { EmbeddingsRequest, LooseEmbeddingsRequest } from "./schema.js";
import { render } from "./vectors.js";
import { GatewayError, modelNotFound } from "../../core/errors.js";
import type { Gateway } from "../../gateway.js";
import { Exchange } from "../../http/exchange.js";
import { requireEmbeddingModel } from "../../catalog/model-kind.js";
import { costOf } from "../../core/money.js";
import { authenticate, takeLimit } from "../../http/request.js";
import type { Usage } from "../../core/chat-request.js";
import type { Attempt } from "../../store/index.js";
import { timed } from "../../observability/timing.js";
import { validate } from "../../core/validate.js";

/** The route's node:http handler; shutdown waits for its settlement like chat's. */
export function serveEmbeddings(gw: Gateway, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const ex = new Exchange(req, res, gw.config.server.compat !== "strict");
  gw.obs.begin(ex.state.rec, "/v1/embeddings", req);
  const done = embeddings(gw, ex).catch((err: unknown) => ex.fail(err));
  gw.pending.add(done);
  return done.finally(() => {
    gw.pending.delete(done);
    gw.obs.respond(ex.state.rec); // its metrics and log line (observability/observer.ts)
  });
}

interface Job {
  inputs: Inputs;
  bound: number;
  attempts: Attempt[];
  bill: Bill;
}

export async function embeddings(gw: Gateway, ex: Exchange): Promise<void> {
  const key = await authenticate(gw, ex.state, ex.header("authorization"), ex.ip);
  const body = readRequest(gw, await ex.body(gw.config.server.maxBodyBytes));
  const byok = await gw.byok.forAccount(key.account);
  const found = gw.catalog.route(gw.config.aliases[body.model] ?? body.model, (plugin) => byok.get(plugin));
  if (!found) throw modelNotFound(body.model);
  requireEmbeddingModel(found.model);
  ex.state.rec.model = found.model.id;
  const inputs = inputsOf(body.input);
  const call = { dimensions: body.dimensions, user: body.user };
  const route = narrowEmbeddings(found, inputs, { ...call, encoding: body.encoding_format ?? "float" });
  const modelTier = gw.config.limits.models[route.model.id];
  if (modelTier) await takeLimit(gw, ex.state, "model", `model:${route.model.id}`, modelTier, false);
  const bound = inputTokenBound(inputs);
  const bill = await holdWorstCase(gw.store, key, route, () => costOf(pricesOf(route), bound, 0), ex.state.id, gw.now());
  bill.endpoint = "embeddings";
  bill.observe(ex.state.rec);
  const job: Job = { inputs, bound, attempts: [], bill };
  try {
    const base64 = body.encoding_format === "base64";
    const { value, endpoint } = await gw.router.run(
      route,
      { byokOnly: bill.byokOnly, keyId: key.id, signal: ex.signal, requestId: ex.state.id, attempts: job.attempts },
      (e) => timed(gw.obs, ex.state.rec, (x: RoutedEndpoint) => embedOn(gw, x, inputs, call, base64, ex.signal), e),
    );
    const usage = await settle(gw, job, endpoint, value);
    ex.json(
      200,
      JSON.stringify({
        object: "list",
        data: value.vectors.map((v, index) => ({ object: "embedding", index, embedding: render(v, base64 ? "base64" : "float") })),
        model: route.model.id,
        usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens },
      }),
    );
  } catch (err) {
    const status = err instanceof GatewayError ? err.status : 500;
    await bill.settle(
      { endpoint: null, usage: null, usageSource: "none", status: ex.signal.aborted ? "cancelled" : "error", httpStatus: status, attempts: job.attempts },
      gw.now(),
    );
    throw err;
  }
}

function readRequest(gw: Gateway, raw: Buffer): EmbeddingsRequest {
  const json = parseJsonBody(raw);
  const compat = gw.config.server.compat;
  // Under `openai` an explicit null means absent (contract.md §11), as on chat.
  if (compat !== "strict" && isObject(json)) dropNullFields(json);
  return validate(compat === "passthrough" ? LooseEmbeddingsRequest : EmbeddingsRequest, json) as EmbeddingsRequest;
}

/**
 * The reported count, bounded by what the input can hold (a provider's bug cannot bill more);
 * a provider that reports none (Gemini) is billed on an o200k count, marked `estimated`.
 * The answer goes out only after its charge and ledger row are committed.
 */
async function settle(gw: Gateway, job: Job, endpoint: RoutedEndpoint, value: Embedded): Promise<Usage> {
  const reported = value.promptTokens;
  const prompt = reported === undefined ? await estimateTokens(job.inputs) : Math.min(reported, job.bound);
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
  await job.bill.settle(
    { endpoint, usage, usageSource: reported === undefined ? "estimated" : "provider", status: "ok", httpStatus: 200, attempts: job.attempts },
    gw.now(),
  );
  return usage;
}
