/**
 * A translated stream in Google's form (streamGenerateContent?alt=sse): one `data:` event per
 * GenerateContentResponse chunk, no `[DONE]`. Text goes out as it arrives; function calls
 * arrive whole in Gemini's streams, so they are gathered and sent in the last chunk, which
 * also carries finishReason and usageMetadata. A failure after the first byte is one
 * `data: {"error": {...}}` event (Google's envelope, errors.ts), the form Google's own
 * streams end with and @google/genai raises as an ApiError.
 */
import type { FinishReason, Usage } from "../../core/chat-request.js";
import type { SseSink } from "../../http/sse.js";
import type { StreamResult } from "../../pipeline/endpoint.js";
import type { StreamDelta, ToolCall } from "../../plugin/contract.js";
import { googleError } from "./errors.js";
import { finishOf, functionCallPart, usageMetadata, type AnswerHead } from "./render.js";

export interface GeminiStreamOptions {
  head: AnswerHead;
  requestId: string;
  first: StreamDelta;
  rest: AsyncIterator<StreamDelta>;
  delivered: { text: string };
  estimate(text: string): Promise<Usage>;
  checkUsage(usage: Usage): Usage;
}

const FAILED = "The upstream stream failed after it started. The answer is incomplete.";

export const dataFrame = (json: unknown) => `data: ${JSON.stringify(json)}\n\n`;

/** The stream's last event when it fails after the first byte. */
export function errorFrame(requestId: string): string {
  return dataFrame({ error: googleError({ message: FAILED, type: "upstream_error", code: "stream_interrupted", request_id: requestId }, 500) });
}

export async function writeGeminiStream(out: SseSink, o: GeminiStreamOptions): Promise<StreamResult> {
  const calls = new Map<number, ToolCall>();
  let usage: Usage | null = null;
  let finish: FinishReason | undefined;
  const result = (outcome: StreamResult["outcome"], estimated = false): StreamResult => ({ usage, estimated, text: o.delivered.text, outcome });
  try {
    for (let r: IteratorResult<StreamDelta> = { done: false, value: o.first }; !r.done; r = await o.rest.next()) {
      const d = r.value;
      if (d.usage) usage = o.checkUsage(d.usage);
      if ((d.index ?? 0) !== 0) continue; // one candidate is asked for
      if (d.finish_reason) finish = d.finish_reason;
      for (const t of d.tool_calls ?? []) gather(calls, t, o.delivered);
      const text = d.content ?? d.refusal;
      if (text) {
        o.delivered.text += text;
        const wait = out.write(dataFrame({ candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0 }], ...o.head }));
        if (wait) await wait;
      }
      if (out.signal.aborted) return await cancel(o, result);
    }
    if (finish === undefined) throw new Error("upstream ended without a finish reason");
    const estimated = !usage;
    usage ??= await o.estimate(o.delivered.text);
    const parts = calls.size ? [...calls.values()].map(functionCallPart) : [{ text: "" }];
    const last = {
      candidates: [{ content: { role: "model", parts }, finishReason: finishOf(finish), index: 0 }],
      usageMetadata: usageMetadata(usage),
      ...o.head,
    };
    out.end(dataFrame(last));
    return result("ok", estimated);
  } catch {
    if (out.signal.aborted) return await cancel(o, result);
    out.end(errorFrame(o.requestId));
    return result("error");
  }
}

/** A tool call's fragments (OpenAI delta form) joined into one call. */
function gather(calls: Map<number, ToolCall>, t: NonNullable<StreamDelta["tool_calls"]>[number], delivered: { text: string }): void {
  let call = calls.get(t.index);
  if (!call) {
    call = { id: t.id ?? `call_${t.index}`, type: "function", function: { name: t.function?.name ?? "", arguments: "" } };
    calls.set(t.index, call);
    delivered.text += call.function.name;
  }
  const args = t.function?.arguments ?? "";
  call.function.arguments += args;
  delivered.text += args;
}

async function cancel(o: GeminiStreamOptions, result: (outcome: StreamResult["outcome"]) => StreamResult): Promise<StreamResult> {
  try {
    await o.rest.return?.();
  } catch {
    // already failed: the upstream request was aborted with the client
  }
  return result("cancelled");
}
