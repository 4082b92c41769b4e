/**
 * What each stage of pipeline/stages.ts does, keyed by its name: the table pipeline/run.ts
 * walks in STAGES' order. Typed as every stage to a function, so the list and the table cannot
 * drift. A stage returns ANSWERED when the request is answered (a cache hit, a stream that
 * rendered and settled itself), and the walk stops there.
 */
import { nanoToUsd } from "../core/money.js";
import type { RoutedEndpoint } from "../catalog/catalog.js";
import type { ChatRequest } from "../core/chat-request.js";
import { authenticate } from "../http/authenticate.js";
import { takeLimit } from "../http/rate-limit.js";
import { cachedRepeat, cacheStage, repeatDigest } from "./cache-step.js";
import type { Job, NativePath, Parsed, RenderStream } from "./endpoint.js";
import { withFailover } from "./failover.js";
import { guardAnswer, guardRequest } from "./guardrails.js";
import { ANSWERED, type Flow, type Next } from "./flow.js";
import { nativeAnswer, servedNatively } from "./native.js";
import { tagsOf } from "./request-tags.js";
import { routeModels } from "./route-models.js";
import type { Stage } from "./stages.js";
import { streamStage } from "./stream.js";

type Run = (f: Flow<Parsed, unknown>) => Promise<Next> | Next;

export const RUNS: Record<Stage, Run> = {
  async auth(f) {
    f.key = await authenticate(f.gw, f.ex.state, f.ex.credential(), () => f.ex.ip);
  },
  async guardrails(f) {
    // The secret guardrail on the body as sent, before the cache, the parse or any upstream reads it (pipeline/guardrails.ts).
    f.raw = guardRequest(f.gw, f.ex.state, f.key, await f.ex.body(f.gw.config.server.maxBodyBytes));
  },
  async parse(f) {
    f.digest = repeatDigest(f.gw, f.ep, f.key, f.raw);
    // These very bytes were answered from the cache before: answered again unparsed (pipeline/cache-step.ts).
    if (await cachedRepeat(f.gw, f.ex, f.ep, f.key, f.digest)) return ANSWERED;
    const parsed = f.ep.parse(f.gw, f.raw, f.key, f.ex);
    f.body = parsed instanceof Promise ? await parsed : parsed;
    f.tags = tagsOf(f.ex, f.ep, f.body); // a malformed tag is a 400 before any hold (docs/usage.md)
  },
  async route(f) {
    f.routes = await routeModels(f.gw, f.ex, f.ep, f.key, f.body);
  },
  async cache(f) {
    // A hit on the first model is answered here (pipeline/cache-step.ts); only its own answer is kept.
    const bytes = f.digest === undefined ? undefined : { digest: f.digest, bytes: f.raw.length };
    const cached = await cacheStage(f.gw, f.ex, f.ep, f.key, f.body, f.routes[0]!, bytes);
    if (cached.answered) return ANSWERED;
    f.keep = cached.keep;
  },
  async limits(f) {
    const route = f.routes[f.model]!;
    f.ex.state.rec.model = route.model.id; // a catalog id: never what the client typed (observability/request-record.ts)
    const tier = f.gw.config.limits.models[route.model.id];
    if (tier) await takeLimit(f.gw, f.ex.state, "model", `model:${route.model.id}`, tier, false);
  },
  async hold(f) {
    const route = f.routes[f.model]!;
    const bill = await f.ep.hold(f.gw, f.key, route, f.body, f.ex.state.id);
    const job: Job = { requestId: f.ex.state.id, keyId: f.key.id, body: f.body, route, bill, attempts: f.attempts };
    job.moreModels = f.model + 1 < f.routes.length;
    if (f.model === 0 && f.keep) job.keep = f.keep;
    bill.endpoint = f.ep.name;
    bill.tags = f.tags;
    bill.observe(f.ex.state.rec);
    f.job = job;
  },
  async adapter(f) {
    if (f.body.stream && f.ep.stream) return streamed(f);
    f.answer = await withFailover(f.gw, f.ex, f.job, (e) => attempt(f, e));
  },
  async settle(f) {
    const { job, answer } = f;
    const measured = f.ep.usage(job, answer!.value);
    f.usage = measured ?? (await f.ep.estimate(job, answer!.value));
    const usageSource = measured ? "provider" : "estimated";
    await job.bill.settle({ endpoint: answer!.endpoint, usage: f.usage, usageSource, status: "ok", httpStatus: 200, attempts: job.attempts }, f.gw.now());
    f.ex.state.headers["x-gateway-cost"] = nanoToUsd(job.bill.charged ?? 0); // the row's charge (docs/routing.md)
  },
  async render(f) {
    // A JSON answer leaves only after its charge and ledger row are committed (settle, before this).
    guardAnswer(f.ex.state, f.answer!.value); // settled first: the upstream's tokens are billed whatever the guardrail does
    f.ep.answerHead?.(f.ex, f.job);
    const written = f.ep.render(f.gw, f.ex, f.job, f.answer!.value, f.usage);
    if (written) await written;
    f.job.keep?.(f.answer!.value, f.usage);
  },
};

/** adapter, render and settle of a stream, in the stream stage (pipeline/stream.ts). Only a chat-form endpoint has `stream` and `native` (pipeline/endpoint.ts): its job is a chat job. */
async function streamed(f: Flow): Promise<Next> {
  const { ep, ex, job } = f;
  const { stream, native } = ep as unknown as { stream: RenderStream<ChatRequest>; native?: NativePath<unknown> };
  const w = { chat: stream, native, head: () => ep.answerHead?.(ex, job) };
  await streamStage(f.gw, ex, job as unknown as Job<ChatRequest>, w);
  return ANSWERED;
}

/** One attempt of the adapter stage: the native step where the endpoint's provider speaks its API (pipeline/native.ts), else the endpoint's adapter. */
function attempt(f: Flow, e: RoutedEndpoint): Promise<unknown> {
  const native = (f.ep as unknown as { native?: NativePath<unknown> }).native;
  const n = servedNatively(native, f.job.route, e);
  if (n) return nativeAnswer(f.gw, f.job as unknown as Job<ChatRequest>, e, native!, n, f.ex.signal);
  return f.ep.adapter(f.gw, f.job, e, f.ex.signal);
}
