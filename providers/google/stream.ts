/**
 * streamGenerateContent?alt=sse -> StreamDeltas. Each SSE `data` is a whole
 * GenerateContentResponse: text parts are increments, a functionCall part arrives complete,
 * finishReason comes on a candidate's last chunk, and usageMetadata on chunks carries the
 * running totals (the last one is the request's total). There is no `[DONE]`.
 */
import {
  readAnswer,
  upstreamFailure,
  type StreamDelta,
  type ToolCallDelta,
  type ToolCalls,
  type UpstreamEvent,
  type Usage,
} from "../../src/plugin/contract.js";
import { responseSchema, type WireCandidate } from "./answer-schema.js";
import { finishReason, groundingCalls, promptBlocked, textOf, toolCallOf, usageOf, withCalls } from "./response.js";

/** Per candidate index: how many tool calls were streamed so far (the next call's OpenAI index). */
type CallCounts = Map<number, number>;

/** One stream's translator (the plugin's `streamEvents`; `stream` pulls the same). */
export function chunkTranslator(): (event: UpstreamEvent, emit: (delta: StreamDelta) => void) => void {
  const calls: CallCounts = new Map();
  // Usage and grounding may come on different chunks: each delta's usage carries both as last seen.
  const seen: { usage?: Usage; searched?: ToolCalls } = {};
  return (event, emit) => {
    if (typeof event.data === "object" && event.data !== null && "error" in event.data)
      throw upstreamFailure("failure", { retryable: true, detail: "gemini: error event in stream" });
    const chunk = readAnswer(responseSchema, event.data, "google stream chunk");
    const candidates = chunk.candidates ?? [];
    for (const [i, c] of candidates.entries()) {
      const delta = candidateDelta(c, c.index ?? i, calls);
      if (delta) emit(delta);
    }
    // A blocked prompt ends the stream with no candidate at all.
    if (promptBlocked(chunk)) emit({ index: 0, finish_reason: "content_filter" });
    const usage = usageOf(chunk.usageMetadata);
    const searched = groundingCalls(candidates);
    if (usage) seen.usage = usage;
    if (searched) seen.searched = searched;
    if ((usage || searched) && seen.usage) emit({ usage: withCalls(seen.usage, seen.searched) });
  };
}

function candidateDelta(c: WireCandidate, index: number, calls: CallCounts): StreamDelta | null {
  const parts = c.content?.parts ?? [];
  const delta: StreamDelta = { index };
  const text = textOf(parts);
  if (text) delta.content = text;
  const toolCalls: ToolCallDelta[] = [];
  for (const p of parts) {
    if (!p.functionCall) continue;
    const n = calls.get(index) ?? 0;
    calls.set(index, n + 1);
    toolCalls.push({ index: n, ...toolCallOf(p.functionCall) });
  }
  if (toolCalls.length) delta.tool_calls = toolCalls;
  const reason = finishReason(c.finishReason, (calls.get(index) ?? 0) > 0);
  if (reason) delta.finish_reason = reason;
  return delta.content !== undefined || delta.tool_calls || delta.finish_reason ? delta : null;
}
