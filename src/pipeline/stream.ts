/**
 * The stream stage: the one path every endpoint's `stream: true` request takes (chat
 * completions, Responses, /v1/messages, Gemini). It fails over only until the first delta or
 * native event, then the endpoint writes the stream in its own format, then the settle stage
 * bills what was delivered (journaled every 2 s while it runs, billing/journal.ts). Guarded by
 * the stream timeout and shutdown (stream-guard.ts). Each attempt is native or translated as
 * the native step decides (native.ts); the secret guardrail checks what is relayed
 * (guardrails.ts, docs/guardrails.md "Streams"). An endpoint supplies only how chat deltas look in its
 * format (Endpoint.stream) and how its native events are read and relayed (Endpoint.native).
 * docs/architecture.md "The stream stage".
 */
import type { RoutedEndpoint } from "../catalog/catalog.js";
import type { ChatRequest, Usage } from "../core/chat-request.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import type { StreamDelta, UpstreamEvent } from "../plugin/contract.js";
import { upstreamFailure } from "../plugin/contract.js";
import { capped } from "../upstream/body.js";
import { decodeSse, PushedStream } from "../upstream/relay.js";
import { estimate, inflightUsage, sendChat } from "./chat-upstream.js";
import type { Job, NativePath, RenderStream, StreamResult } from "./endpoint.js";
import { openNative, servedNatively } from "./native.js";
import { malformed, withFailover } from "./failover.js";
import { StreamGuard } from "./stream-guard.js";
import { guardStream } from "./guardrails.js";
import { untilLanded } from "../billing/settle-retry.js";

type Opened =
  | { native: true; first: UpstreamEvent; rest: AsyncIterator<UpstreamEvent>; endpoint: RoutedEndpoint }
  | { native: false; first: StreamDelta; rest: AsyncIterator<StreamDelta>; endpoint: RoutedEndpoint };

/** How an endpoint's stream is written: its chat writer, its native path if it has one, the headers it adds. */
export interface StreamWriters {
  chat: RenderStream<ChatRequest>;
  native?: NativePath<unknown> | undefined;
  head?: () => void;
}

export async function streamStage(gw: Gateway, ex: Exchange, job: Job<ChatRequest>, w: StreamWriters): Promise<void> {
  const guard = new StreamGuard(ex.signal);
  try {
    const started = gw.now();
    const { value: opened, endpoint } = await withFailover(gw, ex, job, (e) => open(gw, job, e, guard.signal, w));
    const value = await guardStream(ex.state, opened); // the secret guardrail on what is relayed, every endpoint's stream (pipeline/guardrails.ts)
    w.head?.(); // the endpoint's own headers (Endpoint.answerHead)
    ex.startSse();
    guard.arm(started + gw.config.server.timeouts.stream, gw.stopping, gw.now());
    const delivered = { text: "" };
    const untrack = gw.journal.track(job.requestId, () => Promise.resolve(job.bill.inflightRow(endpoint, inflightUsage(job.body, delivered.text.length))));
    const rendering = value.native ? w.native!.relay(gw, ex, job, value, delivered) : w.chat(gw, ex, job, value, delivered);
    const result = await rendering.catch((err: unknown) => {
      untrack();
      throw err;
    });
    settleStream(gw, job, endpoint, result, untrack);
  } finally {
    guard.dispose();
  }
}

/** One endpoint's stream up to its first delta or event: an error there, or an empty stream, fails over. */
async function open(gw: Gateway, job: Job<ChatRequest>, e: RoutedEndpoint, signal: AbortSignal, w: StreamWriters): Promise<Opened> {
  const n = servedNatively(w.native, job.route, e);
  if (n) {
    const rest = await openNative(gw, job, e, w.native!, n, signal);
    const first = await firstOf(rest);
    if (w.native!.failed?.(first.data)) throw upstreamFailure("failure", { retryable: true, detail: "error event at the start of a native stream" });
    return { native: true, first, rest, endpoint: e };
  }
  const rest = deltasOf(gw, await sendChat(gw, job, e, signal));
  return { native: false, first: await firstOf(rest), rest, endpoint: e };
}

async function firstOf<T>(rest: AsyncIterator<T>): Promise<T> {
  let first: IteratorResult<T>;
  try {
    first = await rest.next();
  } catch (err) {
    throw malformed(err);
  }
  if (first.done) throw malformed(new Error("upstream stream ended before any output"));
  return first.value;
}

/**
 * The deltas of a streamed chat answer. An SSE answer whose adapter has `streamEvents`
 * (OpenAI-format, Anthropic, Google) is relayed by push (upstream/relay.ts); others go through
 * their async `stream`.
 */
function deltasOf(gw: Gateway, { plugin, ctx, res }: Awaited<ReturnType<typeof sendChat>>): AsyncIterator<StreamDelta> {
  const caps = gw.config.server.upstream;
  if (plugin.chat.streamEvents && !plugin.decodeStream) return new PushedStream(res.body, caps, plugin.chat.streamEvents(ctx));
  const events = plugin.decodeStream ? plugin.decodeStream(capped(res.body, caps.maxResponseBytes)) : decodeSse(res.body, caps);
  return plugin.chat.stream(events, ctx)[Symbol.asyncIterator]();
}

/**
 * A cut stream without usage is billed on an estimate of what was delivered. The write is
 * retried until it lands (billing/settle-retry.ts), its final row kept in the journal meanwhile.
 */
function settleStream(gw: Gateway, job: Job<ChatRequest>, endpoint: RoutedEndpoint, r: StreamResult, untrack: () => void): void {
  const settle = (usage: Usage | null, usageSource: "provider" | "estimated" | "none") => {
    const row = usage && job.bill.inflightRow(endpoint, usage);
    if (row) gw.journal.track(job.requestId, () => Promise.resolve(row));
    const retry = (write: () => Promise<void>) => untilLanded(write, job.requestId, gw.journal.closing, (line) => gw.obs.log.notice("error", line));
    return job.bill.settle({ endpoint, usage, usageSource, status: r.outcome, httpStatus: 200, attempts: job.attempts }, gw.now(), retry);
  };
  // The client already has its answer: shutdown waits for this write (gw.pending).
  const settling = (
    r.usage || !r.text
      ? settle(r.usage, r.usage ? (r.estimated ? "estimated" : "provider") : "none")
      : estimate(job.body, r.text).then((usage) => settle(usage, "estimated"))
  ).finally(untrack);
  gw.pending.add(settling);
  settling
    .catch((err: unknown) =>
      gw.obs.log.notice("error", `[gateway] ${job.requestId} settlement failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    )
    .finally(() => gw.pending.delete(settling));
}
