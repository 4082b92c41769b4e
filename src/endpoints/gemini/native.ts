/**
 * The native path (docs/gemini.md): on an endpoint whose plugin speaks Gemini
 * (`native.gemini`, providers/google/native.ts), through the pipeline's native step (pipeline/native.ts), the client's body goes upstream byte for byte
 * and the answer, or each stream chunk, comes back as Google sent it. The gateway reads only
 * the usage (billed exactly, cached and thought tokens at their prices) and the text (for an
 * estimate when a stream is cut before its usage).
 */
import { checkedUsage } from "../../billing/usage-check.js";
import type { Usage, ToolCalls } from "../../core/chat-request.js";
import type { SseSink } from "../../http/sse.js";
import type { NativePath, StreamResult } from "../../pipeline/endpoint.js";
import { nativeOf } from "../../pipeline/native.js";
import type { Completion, NativeGemini, UpstreamEvent } from "../../plugin/contract.js";
import { contextOf, streamCommon } from "./context.js";
import { dataFrame, errorFrame } from "./stream.js";

interface NativeAnswer {
  json: unknown;
  usage?: Usage;
  text: string;
}

/** A native answer as Google sent it, or a translated one in chat's form. */
export type GeminiAnswer = { native: NativeAnswer } | { chat: Completion };

/** The native form of Google's generateContent for the pipeline's native step (pipeline/native.ts). */
export const GEMINI_NATIVE: NativePath<GeminiAnswer, "gemini"> = {
  api: "gemini",
  request: (n, job, ctx) => n.request(contextOf(job.body).raw, ctx),
  answer(n, job, json) {
    const read = n.read(json);
    const answer: NativeAnswer = { json, text: read.text };
    if (read.usage) answer.usage = checkedUsage(read.usage, job.route.model, contextOf(job.body).candidates);
    return { native: answer };
  },
  failed: isError,
  relay: (_gw, ex, job, opened, delivered) =>
    relayNativeStream(ex, { native: nativeOf(opened.endpoint, "gemini")!, first: opened.first, rest: opened.rest }, streamCommon(job, delivered)),
};

interface NativeStream {
  native: NativeGemini;
  first: UpstreamEvent;
  rest: AsyncIterator<UpstreamEvent>;
}

interface NativeStreamOptions {
  requestId: string;
  delivered: { text: string };
  estimate(text: string): Promise<Usage>;
  checkUsage(usage: Usage): Usage;
}

/** Every chunk as Google sent it; its error event or a failure to read becomes the gateway's error event (errors.ts). */
async function relayNativeStream(out: SseSink, s: NativeStream, o: NativeStreamOptions): Promise<StreamResult> {
  let usage: Usage | null = null;
  let searched: ToolCalls | undefined; // grounding may come on another chunk than the usage: the last seen joins it
  const result = (outcome: StreamResult["outcome"], estimated = false): StreamResult => ({ usage, estimated, text: o.delivered.text, outcome });
  try {
    for (let r: IteratorResult<UpstreamEvent> = { done: false, value: s.first }; !r.done; r = await s.rest.next()) {
      if (isError(r.value.data)) throw new Error("error event in the upstream stream");
      const read = s.native.read(r.value.data);
      searched = read.toolCalls ?? searched;
      if (read.usage) usage = o.checkUsage(read.usage);
      if (usage && searched) usage = o.checkUsage({ ...usage, tool_calls: searched });
      o.delivered.text += read.text;
      const wait = out.write(dataFrame(r.value.data));
      if (wait) await wait;
      if (out.signal.aborted) return await cancel(s, result);
    }
    const estimated = !usage;
    usage ??= await o.estimate(o.delivered.text);
    out.end("");
    return result("ok", estimated);
  } catch {
    if (out.signal.aborted) return await cancel(s, result);
    out.end(errorFrame(o.requestId));
    return result("error");
  }
}

/** Google's error chunk: at the start of a stream, failed over; later, the gateway's error event. */
function isError(data: unknown): boolean {
  return typeof data === "object" && data !== null && "error" in data;
}

async function cancel(s: NativeStream, result: (outcome: StreamResult["outcome"]) => StreamResult): Promise<StreamResult> {
  try {
    await s.rest.return?.();
  } catch {
    // already failed: the upstream request was aborted with the client
  }
  return result("cancelled");
}
