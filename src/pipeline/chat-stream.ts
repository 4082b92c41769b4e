/**
 * A chat request with `stream: true`: the adapter stage fails over only until the first delta,
 * then the endpoint renders the stream, then the settle stage bills what was delivered (the
 * row is journaled while the stream runs, billing/journal.ts). Chat completions and
 * Responses plug this in as their `stream` with their own stream renderer.
 */
import type { RoutedEndpoint } from "../catalog/catalog.js";
import type { ChatRequest, Usage } from "../core/chat-request.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import type { StreamDelta } from "../plugin/contract.js";
import { capped } from "../upstream/body.js";
import { decodeSse, PushedStream } from "../upstream/relay.js";
import { estimate, inflightUsage, sendChat } from "./chat-upstream.js";
import type { Job, RenderStream, StreamResult } from "./endpoint.js";
import { malformed, withFailover } from "./failover.js";
import { StreamGuard } from "./stream-guard.js";
import { guardStream } from "./guardrails.js";
import { untilLanded } from "../billing/settle-retry.js";

type StreamStage = (gw: Gateway, ex: Exchange, job: Job<ChatRequest>) => Promise<void>;

/** Opens one endpoint's stream; failover is allowed until it resolves. */
type OpenStream<T> = (gw: Gateway, job: Job<ChatRequest>, e: RoutedEndpoint, signal: AbortSignal) => Promise<AsyncIterator<T>>;

/** The `stream` of an endpoint that renders chat deltas with `render`; built once, when the endpoint's module loads. */
export function streamsChat(render: RenderStream<ChatRequest>): StreamStage {
  return streamsVia(openChat, render);
}

/** The same stages for a stream of another item than chat deltas (a provider's own events relayed, endpoints/responses/native.ts). */
export function streamsVia<T>(open: OpenStream<T>, render: RenderStream<ChatRequest, T>): StreamStage {
  return async (gw, ex, job) => {
    const guard = new StreamGuard(ex.signal);
    try {
      await streamWith(gw, ex, job, guard, open, render);
    } finally {
      guard.dispose();
    }
  };
}

const openChat: OpenStream<StreamDelta> = async (gw, job, e, signal) => deltasOf(gw, await sendChat(gw, job, e, signal));

/**
 * The deltas of a streamed chat answer. An SSE answer whose adapter has `streamEvents`
 * (OpenAI-format, Anthropic, Google) is relayed by push (upstream/relay.ts); others go through
 * their async `stream`. Also the translated paths of /v1/messages and /v1beta.
 */
export function deltasOf(gw: Gateway, { plugin, ctx, res }: Awaited<ReturnType<typeof sendChat>>): AsyncIterator<StreamDelta> {
  const caps = gw.config.server.upstream;
  if (plugin.chat.streamEvents && !plugin.decodeStream) return new PushedStream(res.body, caps, plugin.chat.streamEvents(ctx));
  const events = plugin.decodeStream ? plugin.decodeStream(capped(res.body, caps.maxResponseBytes)) : decodeSse(res.body, caps);
  return plugin.chat.stream(events, ctx)[Symbol.asyncIterator]();
}

async function streamWith<T>(gw: Gateway, ex: Exchange, job: Job<ChatRequest>, guard: StreamGuard, open: OpenStream<T>, render: RenderStream<ChatRequest, T>) {
  const started = gw.now();
  const { value: opened, endpoint } = await withFailover(gw, ex, job, async (e) => {
    const rest = await open(gw, job, e, guard.signal);
    // Failover is allowed until the first byte goes to the client: wait for the first delta.
    let first: IteratorResult<T>;
    try {
      first = await rest.next();
    } catch (err) {
      throw malformed(err);
    }
    if (first.done) throw malformed(new Error("upstream stream ended before any output"));
    return { first: first.value, rest, endpoint: e };
  });
  const value = await guardStream(ex.state, opened); // the secret guardrail on what is relayed (pipeline/guardrails.ts)
  ex.startSse();
  guard.arm(started + gw.config.server.timeouts.stream, gw.stopping, gw.now());
  const delivered = { text: "" };
  const untrack = gw.journal.track(job.requestId, () => Promise.resolve(job.bill.inflightRow(endpoint, inflightUsage(job.body, delivered.text.length))));
  const result = await render(gw, ex, job, value, delivered).catch((err: unknown) => {
    untrack();
    throw err;
  });
  settleStream(gw, job, endpoint, result, untrack);
}

/**
 * A cut stream without usage is billed on an estimate of what was delivered. The write is
 * retried until it lands (billing/settle-retry.ts), its final row kept in the journal meanwhile.
 * Also the settle stage of /v1/messages streams (endpoints/messages/stream-stage.ts).
 */
export function settleStream(gw: Gateway, job: Job<ChatRequest>, endpoint: RoutedEndpoint, r: StreamResult, untrack: () => void): void {
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
