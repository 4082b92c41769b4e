/**
 * The request pipeline, top to bottom:
 * auth → limits → read → route → reserve → adapter (with failover) → settle → respond.
 * One pipeline serves every route that speaks chat upstream: a route contributes a
 * `Renderer` (pipeline/endpoint.ts: how its body becomes the internal ChatRequest, how the
 * answer and the stream are written); endpoints/chat/route.ts and endpoints/responses/route.ts
 * are the two. It runs on plain node:http (http/exchange.ts): the hot path has no
 * Web Request/Response. An error thrown here is rendered by the caller (Exchange.fail).
 */
import { openBill, outputBudget } from "../billing/bill.js";
import type { RoutedEndpoint } from "../catalog/catalog.js";
import { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import type { CallContext, Completion, StreamDelta } from "../plugin/contract.js";
import { modelMissing } from "../catalog/model-hint.js";
import { authenticate, takeLimit } from "../http/request.js";
import { needsOf, narrowRoute } from "../catalog/capabilities.js";
import type { ChatRequest, Usage } from "../core/chat-request.js";
import type { Job, Renderer, StreamResult } from "./endpoint.js";
import { StreamGuard } from "./stream-guard.js";
import { countPromptTokens, countTextTokens } from "../billing/tokens.js";
import { timed } from "../observability/timing.js";
import { UpstreamFailure } from "../plugin/failure.js";
import { capped, decodeSse, readJson } from "../upstream/body.js";
import { checkedUsage } from "../billing/usage-check.js";

export async function runPipeline(gw: Gateway, ex: Exchange, out: Renderer): Promise<void> {
  const key = await authenticate(gw, ex.state, ex.header("authorization"), ex.ip);
  const read = out.read(gw, await ex.body(gw.config.server.maxBodyBytes), key);
  const body = read instanceof Promise ? await read : read;
  const byok = await gw.byok.forAccount(key.account);
  const found = gw.catalog.route(gw.config.aliases[body.model] ?? body.model, (plugin) => byok.get(plugin));
  if (!found) throw modelMissing(gw.catalog, body.model, (plugin) => byok.get(plugin));
  const route = narrowRoute(found, needsOf(body));
  ex.state.rec.model = route.model.id; // a catalog id: never what the client typed (observability/request-record.ts)
  const modelTier = gw.config.limits.models[route.model.id];
  if (modelTier) await takeLimit(gw, ex.state, "model", `model:${route.model.id}`, modelTier, false);
  const job: Job = {
    requestId: ex.state.id,
    keyId: key.id,
    body,
    route,
    bill: await openBill(gw.store, key, route, body, ex.state.id, gw.now()),
    attempts: [],
  };
  if (out.endpoint) job.bill.endpoint = out.endpoint;
  job.bill.observe(ex.state.rec);
  try {
    await (body.stream ? streamed(gw, ex, job, out) : completed(gw, ex, job, out));
  } catch (err) {
    const status = err instanceof GatewayError ? err.status : 500;
    await job.bill.settle(
      { endpoint: null, usage: null, usageSource: "none", status: ex.signal.aborted ? "cancelled" : "error", httpStatus: status, attempts: job.attempts },
      gw.now(),
    );
    throw err;
  }
}

/**
 * An upstream answer the adapter cannot read, or a stream that reports an error (Anthropic's
 * overloaded_error event), is that endpoint's failure: fail over, and retry in later rounds.
 * Answers the core refuses (over a cap, bad usage) are InvalidAnswer already.
 */
function malformed(cause: unknown): GatewayError {
  return cause instanceof GatewayError ? cause : new UpstreamFailure("failure", true, null, null, cause);
}

/** The adapter's request sent to one endpoint; failover around it is the router's. */
async function call(gw: Gateway, job: Job, e: RoutedEndpoint, signal: AbortSignal) {
  const plugin = e.instance.plugin;
  const ctx: CallContext = {
    settings: e.instance.settings,
    apiKey: e.apiKey,
    model: e.model,
    stream: job.body.stream === true,
    maxOutput: outputBudget(job.body, job.route),
  };
  const res = await gw.upstream.send(await plugin.chat.request(job.body, ctx), plugin, signal);
  return { plugin, ctx, res };
}

function withFailover<T>(gw: Gateway, ex: Exchange, job: Job, attempt: (e: RoutedEndpoint) => Promise<T>) {
  // Each attempt's upstream wait is timed: the gateway's own time excludes it (observability/timing.ts).
  return gw.router.run(job.route, { byokOnly: job.bill.byokOnly, keyId: job.keyId, signal: ex.signal, requestId: job.requestId, attempts: job.attempts }, (e) =>
    timed(gw.obs, ex.state.rec, attempt, e),
  );
}

async function completed(gw: Gateway, ex: Exchange, job: Job, out: Renderer): Promise<void> {
  const { value, endpoint } = await withFailover(gw, ex, job, async (e) => {
    const { plugin, ctx, res } = await call(gw, job, e, ex.signal);
    try {
      const answer = plugin.chat.response(await readJson(res.body, gw.config.server.upstream.maxResponseBytes), ctx);
      if (answer.usage) answer.usage = checkedUsage(answer.usage, job.route.model, job.body.n ?? 1);
      return answer;
    } catch (err) {
      throw malformed(err);
    }
  });
  const measured = value.usage;
  const usage = measured ?? (await estimate(job.body, completionText(value)));
  // The answer goes out only after its charge and ledger row are committed.
  await job.bill.settle({ endpoint, usage, usageSource: measured ? "provider" : "estimated", status: "ok", httpStatus: 200, attempts: job.attempts }, gw.now());
  const written = out.answer(gw, ex, job, value, usage);
  if (written) await written;
}

async function streamed(gw: Gateway, ex: Exchange, job: Job, out: Renderer): Promise<void> {
  const guard = new StreamGuard(ex.signal);
  try {
    await streamWith(gw, ex, job, guard, out);
  } finally {
    guard.dispose();
  }
}

async function streamWith(gw: Gateway, ex: Exchange, job: Job, guard: StreamGuard, out: Renderer): Promise<void> {
  const started = gw.now();
  const { value, endpoint } = await withFailover(gw, ex, job, async (e) => {
    const { plugin, ctx, res } = await call(gw, job, e, guard.signal);
    const caps = gw.config.server.upstream;
    const events = plugin.decodeStream ? plugin.decodeStream(capped(res.body, caps.maxResponseBytes)) : decodeSse(res.body, caps);
    const rest = plugin.chat.stream(events, ctx)[Symbol.asyncIterator]();
    // Failover is allowed until the first byte goes to the client: wait for the first delta.
    let first: IteratorResult<StreamDelta>;
    try {
      first = await rest.next();
    } catch (err) {
      throw malformed(err);
    }
    if (first.done) throw malformed(new Error("upstream stream ended before any output"));
    return { first: first.value, rest, endpoint: e };
  });
  ex.startSse();
  guard.arm(started + gw.config.server.timeouts.stream, gw.stopping, gw.now());
  const delivered = { text: "" };
  const untrack = gw.journal.track(job.requestId, async () => job.bill.inflightRow(endpoint, await estimate(job.body, delivered.text)));
  const result = await out.stream(gw, ex, job, value, delivered).finally(untrack);
  settleStream(gw, job, endpoint, result);
}

/** A cut stream without usage is billed on an estimate of what was delivered (contract.md §5). */
function settleStream(gw: Gateway, job: Job, endpoint: RoutedEndpoint, r: StreamResult): void {
  const settle = (usage: Usage | null, usageSource: "provider" | "estimated" | "none") =>
    job.bill.settle({ endpoint, usage, usageSource, status: r.outcome, httpStatus: 200, attempts: job.attempts }, gw.now());
  // The client already has its answer: shutdown waits for this write (gw.pending).
  const settling =
    r.usage || !r.text
      ? settle(r.usage, r.usage ? (r.estimated ? "estimated" : "provider") : "none")
      : estimate(job.body, r.text).then((usage) => settle(usage, "estimated"));
  gw.pending.add(settling);
  settling.catch((err) => console.error(`[gateway] ${job.requestId} settlement failed:`, err)).finally(() => gw.pending.delete(settling));
}

function completionText(c: Completion): string {
  return c.choices.map((ch) => (ch.content ?? "") + (ch.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join("")).join("");
}

/** A request's prompt is counted once, however often the journal asks for an estimate. */
const promptCounts = new WeakMap<ChatRequest, Promise<number>>();

/** Usage counted here, for an answer or a cut stream the upstream reported none for. */
export async function estimate(body: ChatRequest, text: string): Promise<Usage> {
  let counting = promptCounts.get(body);
  if (!counting) promptCounts.set(body, (counting = countPromptTokens(body.messages)));
  const prompt = await counting;
  const completion = await countTextTokens(text);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
