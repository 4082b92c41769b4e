/**
 * Gemini GenerateContentResponse -> Completion (https://ai.google.dev/api/generate-content#generatecontentresponse).
 * Shared by the stream reader: candidate parts, finish reasons and usageMetadata.
 */
import { randomUUID } from "node:crypto";
import { readAnswer, type Completion, type FinishReason, type ToolCall, type ToolCalls, type Usage } from "../../src/plugin/contract.js";
import { responseSchema, type WireCandidate, type WirePart, type WireResponse, type WireUsage } from "./answer-schema.js";

/**
 * Buckets are disjoint: cachedContentTokenCount is already inside promptTokenCount,
 * thoughts and tool-use prompts are reported beside candidates and prompt. Proto3 JSON
 * omits zero counts, so a missing count is 0; a block with no count at all is no usage.
 */
export function usageOf(u: WireUsage | null | undefined): Usage | undefined {
  if (!u) return undefined;
  const counts = [u.promptTokenCount, u.candidatesTokenCount, u.thoughtsTokenCount, u.toolUsePromptTokenCount];
  if (!counts.some((c) => typeof c === "number")) return undefined;
  const n = (c: number | null | undefined) => (typeof c === "number" ? c : 0);
  const prompt = n(u.promptTokenCount) + n(u.toolUsePromptTokenCount);
  const completion = n(u.candidatesTokenCount) + n(u.thoughtsTokenCount);
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  // Cache hits (cached content, implicit or explicit) and thoughts, each billed at its own price.
  if (u.cachedContentTokenCount) usage.prompt_tokens_details = { cached_tokens: u.cachedContentTokenCount };
  if (u.thoughtsTokenCount) usage.completion_tokens_details = { reasoning_tokens: u.thoughtsTokenCount };
  return usage;
}

/**
 * Grounding with Google Search as per-call counts (docs/billing.md, "Per-call tool fees"):
 * `google_search`, the queries it ran (Gemini 3 bills each), and `google_search_prompt`, one for
 * an answer that searched (Gemini 2.x bills each grounded prompt); undefined when no candidate
 * says it searched. A stream's chunks carry it as they carry usage: the last one seen stands.
 */
export function groundingCalls(candidates: readonly WireCandidate[]): ToolCalls | undefined {
  let queries = 0;
  for (const c of candidates) queries += c.groundingMetadata?.webSearchQueries?.length ?? 0;
  return queries ? { google_search: queries, google_search_prompt: 1 } : undefined;
}

/** Usage with the answer's per-call counts. */
export function withCalls(usage: Usage, calls: ToolCalls | undefined): Usage {
  return calls ? { ...usage, tool_calls: calls } : usage;
}

/**
 * Candidate.FinishReason values that mean a filter cut the answer
 * (https://ai.google.dev/api/generate-content#FinishReason; the same set as vercel/ai's
 * map-google-finish-reason.ts, plus the other image filters of the enum).
 */
const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"]);

/** MAX_TOKENS is a cut; filters are content_filter; a turn with function calls asks for tools; anything else (OTHER, LANGUAGE...) stopped. */
export function finishReason(reason: string | null | undefined, hasCalls: boolean): FinishReason {
  if (!reason) return null;
  if (reason === "MAX_TOKENS") return "length";
  if (FILTERED.has(reason)) return "content_filter";
  return hasCalls ? "tool_calls" : "stop";
}

/** A prompt Gemini refused to answer: promptFeedback.blockReason set, no candidate (BlockReason, same page). */
export function promptBlocked(json: WireResponse): boolean {
  const reason = json.promptFeedback?.blockReason;
  return !json.candidates?.length && !!reason && reason !== "BLOCK_REASON_UNSPECIFIED";
}

/** Gemini ids function calls only sometimes; OpenAI clients need one to pair the result. */
function callId(id: string | null | undefined): string {
  return id || `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
}

export function toolCallOf(call: NonNullable<WirePart["functionCall"]>): ToolCall {
  return { id: callId(call.id), type: "function", function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
}

/** Thought summaries are reasoning, not the answer: they never reach `content`. */
export function textOf(parts: WirePart[]): string | undefined {
  const texts = parts.flatMap((p) => (typeof p.text === "string" && !p.thought ? [p.text] : []));
  return texts.length ? texts.join("") : undefined;
}

export function fromGenerateContent(json: unknown): Completion {
  const answer = readAnswer(responseSchema, json, "google GenerateContentResponse");
  const candidates = answer.candidates ?? [];
  // A blocked prompt has no candidates: the answer is empty, and a filter stopped it.
  const choices = candidates.length
    ? candidates.map((c, i) => choiceOf(c, i))
    : [{ index: 0, content: "", finish_reason: promptBlocked(answer) ? ("content_filter" as const) : ("stop" as const) }];
  const usage = usageOf(answer.usageMetadata);
  return { id: answer.responseId ?? undefined, choices, usage: usage && withCalls(usage, groundingCalls(candidates)) };
}

function choiceOf(c: WireCandidate, i: number): Completion["choices"][number] {
  const parts = c.content?.parts ?? [];
  const calls = parts.flatMap((p) => (p.functionCall ? [toolCallOf(p.functionCall)] : []));
  const text = textOf(parts);
  return {
    index: c.index ?? i,
    content: text ?? (calls.length ? null : ""),
    tool_calls: calls.length ? calls : undefined,
    finish_reason: finishReason(c.finishReason ?? "STOP", calls.length > 0),
  };
}
