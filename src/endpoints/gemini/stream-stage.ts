/**
 * The `stream` stage of the Gemini endpoint: pipeline/chat-stream.ts's sequence (fail over
 * until the first chunk, then render, then settle what was delivered, journaled meanwhile)
 * with each attempt native or translated by its endpoint's plugin. A native attempt relays
 * Google's chunks (native.ts); a translated one renders chat deltas as Google's chunks (stream.ts).
 */
import { checkedUsage } from "../../billing/usage-check.js";
import type { ChatRequest, Usage } from "../../core/chat-request.js";
import type { Gateway } from "../../gateway.js";
import type { Exchange } from "../../http/exchange.js";
import { estimate, inflightUsage, sendChat } from "../../pipeline/chat-upstream.js";
import { deltasOf, settleStream } from "../../pipeline/chat-stream.js";
import type { Job, StreamResult } from "../../pipeline/endpoint.js";
import { malformed, withFailover } from "../../pipeline/failover.js";
import { StreamGuard } from "../../pipeline/stream-guard.js";
import { guardStream } from "../../pipeline/guardrails.js";
import type { StreamDelta } from "../../plugin/contract.js";
import { openNativeStream, relayNativeStream } from "./native.js";
import type { AnswerHead } from "./render.js";
import { writeGeminiStream } from "./stream.js";

interface ChatStream {
  first: StreamDelta;
  rest: AsyncIterator<StreamDelta>;
}

/** What the endpoint knows of the request beyond its chat form. */
export interface StreamInputs {
  raw: string;
  candidates: number;
  head: AnswerHead;
}

export async function streamGemini(gw: Gateway, ex: Exchange, job: Job<ChatRequest>, inputs: StreamInputs): Promise<void> {
  const guard = new StreamGuard(ex.signal);
  try {
    const started = gw.now();
    const { value, endpoint } = await withFailover(gw, ex, job, async (e) => ({
      opened: e.instance.plugin.nativeGemini ? await openNativeStream(gw, job, e, inputs.raw, guard.signal) : await openChat(gw, job, e, guard.signal),
      endpoint: e,
    }));
    value.opened = await guardStream(ex.state, value.opened); // the secret guardrail on what is relayed (pipeline/guardrails.ts)
    ex.startSse();
    guard.arm(started + gw.config.server.timeouts.stream, gw.stopping, gw.now());
    const delivered = { text: "" };
    const untrack = gw.journal.track(job.requestId, () => Promise.resolve(job.bill.inflightRow(endpoint, inflightUsage(job.body, delivered.text.length))));
    const common = {
      requestId: job.requestId,
      delivered,
      estimate: (text: string) => estimate(job.body, text),
      checkUsage: (u: Usage) => checkedUsage(u, job.route.model, inputs.candidates),
    };
    const rendering: Promise<StreamResult> =
      "native" in value.opened
        ? relayNativeStream(ex, value.opened, common)
        : writeGeminiStream(ex, { ...common, head: inputs.head, first: value.opened.first, rest: value.opened.rest });
    const result = await rendering.catch((err: unknown) => {
      untrack();
      throw err;
    });
    settleStream(gw, job, endpoint, result, untrack);
  } finally {
    guard.dispose();
  }
}

/** A translated attempt: the adapter's chat stream, open until its first delta. */
async function openChat(gw: Gateway, job: Job<ChatRequest>, e: Parameters<typeof sendChat>[2], signal: AbortSignal): Promise<ChatStream> {
  const rest = deltasOf(gw, await sendChat(gw, job, e, signal));
  let first: IteratorResult<StreamDelta>;
  try {
    first = await rest.next();
  } catch (err) {
    throw malformed(err);
  }
  if (first.done) throw malformed(new Error("upstream stream ended before any output"));
  return { first: first.value, rest };
}
