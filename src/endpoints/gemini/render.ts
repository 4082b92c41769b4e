/**
 * A translated answer in Google's shape (GenerateContentResponse,
 * https://ai.google.dev/api/generate-content#generatecontentresponse): `candidates[{content:
 * {role: "model", parts}, finishReason, index}]`, `usageMetadata`, `modelVersion` (the catalog
 * model that answered) and `responseId`. A function call is one whole `functionCall` part with
 * its args as an object, and the provider's call id as `id`, which Gemini clients send back on
 * the functionResponse (contents.ts pairs by it).
 */
import type { FinishReason, Usage } from "../../core/chat-request.js";
import type { Completion, ToolCall } from "../../plugin/contract.js";

export interface AnswerHead {
  responseId: string;
  modelVersion: string;
}

type Choice = Completion["choices"][number];

/** Gemini says STOP for a turn that calls functions too; a filter is SAFETY. */
export function finishOf(reason: FinishReason | undefined): string {
  if (reason === "length") return "MAX_TOKENS";
  if (reason === "content_filter") return "SAFETY";
  return "STOP";
}

export function usageMetadata(u: Usage): Record<string, number> {
  const thoughts = u.completion_tokens_details?.reasoning_tokens ?? 0;
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    promptTokenCount: u.prompt_tokens,
    candidatesTokenCount: u.completion_tokens - thoughts,
    totalTokenCount: u.total_tokens,
    ...(cached ? { cachedContentTokenCount: cached } : {}),
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  };
}

export function functionCallPart(call: ToolCall) {
  return { functionCall: { id: call.id, name: call.function.name, args: argsOf(call.function.arguments) } };
}

/** Gemini's args are an object: arguments that are not one (a provider's malformed JSON) come as `{}`. */
function argsOf(json: string): Record<string, unknown> {
  try {
    const value: unknown = json.trim() ? JSON.parse(json) : {};
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function candidate(c: Choice) {
  const parts: unknown[] = [];
  const text = c.content ?? c.refusal ?? "";
  if (text || !c.tool_calls?.length) parts.push({ text });
  for (const call of c.tool_calls ?? []) parts.push(functionCallPart(call));
  return { content: { role: "model", parts }, finishReason: finishOf(c.finish_reason), index: c.index };
}

export function renderAnswer(value: Completion, usage: Usage, head: AnswerHead) {
  return { candidates: value.choices.map(candidate), usageMetadata: usageMetadata(usage), ...head };
}
