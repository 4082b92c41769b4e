/**
 * The `stream` stage of /v1/messages: failover until the first event (native) or delta
 * (translated), each endpoint on its own path, then the client's stream (relay.ts or
 * stream.ts), then the settle stage as chat's streams settle (pipeline/chat-stream.ts).
 */
import { checkedUsage } from "../../billing/usage-check.js";
import type { RoutedEndpoint } from "../../catalog/catalog.js";
import type { ChatRequest } from "../../core/chat-request.js";
import type { Gateway } from "../../gateway.js";
import type { Exchange } from "../../http/exchange.js";
import { estimate, inflightUsage, sendChat } from "../../pipeline/chat-upstream.js";
import { deltasOf, settleStream } from "../../pipeline/chat-stream.js";
import type { Job, StreamResult } from "../../pipeline/endpoint.js";
import { malformed, withFailover } from "../../pipeline/failover.js";
import { StreamGuard } from "../../pipeline/stream-guard.js";
import { guardStream } from "../../pipeline/guardrails.js";
import { upstreamFailure, type NativeMessages, type StreamDelta, type UpstreamEvent } from "../../plugin/contract.js";
import { capped } from "../../upstream/body.js";
import { decodeSse } from "../../upstream/relay.js";
import { messageId, nativeOf } from "./context.js";
import { sendNative } from "./native.js";
import { relayNative } from "./relay.js";
import { writeMessageStream } from "./stream.js";

type Opened =
  | { kind: "native"; first: UpstreamEvent; rest: AsyncIterator<UpstreamEvent>; native: NativeMessages }
  | { kind: "chat"; first: StreamDelta; rest: AsyncIterator<StreamDelta> };

export async function streamMessages(gw: Gateway, ex: Exchange, job: Job<ChatRequest>): Promise<void> {
  const guard = new StreamGuard(ex.signal);
  try {
    const started = gw.now();
    const { value, endpoint } = await withFailover(gw, ex, job, async (e) => ({ opened: await open(gw, job, e, guard.signal), endpoint: e }));
    value.opened = await guardStream(ex.state, value.opened); // the secret guardrail on what is relayed (pipeline/guardrails.ts)
    ex.startSse();
    guard.arm(started + gw.config.server.timeouts.stream, gw.stopping, gw.now());
    const delivered = { text: "" };
    const untrack = gw.journal.track(job.requestId, () => Promise.resolve(job.bill.inflightRow(endpoint, inflightUsage(job.body, delivered.text.length))));
    const result = await write(gw, ex, job, value.opened, delivered).catch((err: unknown) => {
      untrack();
      throw err;
    });
    settleStream(gw, job, endpoint, result, untrack);
  } finally {
    guard.dispose();
  }
}

function write(gw: Gateway, ex: Exchange, job: Job<ChatRequest>, opened: Opened, delivered: { text: string }): Promise<StreamResult> {
  const common = {
    requestId: job.requestId,
    delivered,
    estimate: (text: string) => estimate(job.body, text),
    checkUsage: (u: Parameters<typeof checkedUsage>[0]) => checkedUsage(u, job.route.model, 1),
  };
  if (opened.kind === "native") return relayNative(ex, { ...common, id: messageId(job), first: opened.first, rest: opened.rest, native: opened.native });
  return writeMessageStream(ex, { ...common, head: { id: messageId(job), model: job.route.model.id }, first: opened.first, rest: opened.rest });
}

/** One endpoint's stream, up to its first event: an error there (or an empty stream) fails over. */
async function open(gw: Gateway, job: Job<ChatRequest>, e: RoutedEndpoint, signal: AbortSignal): Promise<Opened> {
  const caps = gw.config.server.upstream;
  if (nativeOf(e)) {
    const { n, res } = await sendNative(gw, job, e, signal);
    const plugin = e.instance.plugin;
    const decoded = plugin.decodeStream ? plugin.decodeStream(capped(res.body, caps.maxResponseBytes)) : decodeSse(res.body, caps);
    const rest = (n.events ? n.events(decoded) : decoded)[Symbol.asyncIterator]();
    const first = await firstOf(rest);
    if ((first.data as { type?: unknown } | null)?.type === "error")
      throw upstreamFailure("failure", { retryable: true, detail: "messages stream error event" });
    return { kind: "native", first, rest, native: n };
  }
  const rest = deltasOf(gw, await sendChat(gw, job, e, signal));
  return { kind: "chat", first: await firstOf(rest), rest };
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
