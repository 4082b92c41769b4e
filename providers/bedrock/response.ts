/**
 * Converse response -> Completion.
 * Reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
import { readAnswer, type Completion, type FinishReason, type ToolCall, type Usage } from "../../src/plugin/contract.js";
import { converseSchema, type WireToolUse, type WireUsage } from "./answer-schema.js";
import type { CallState } from "./call-state.js";
import { clientId, type IdMap } from "./tool-ids.js";

/**
 * Verified rule: `inputTokens` counts only the uncached input; cache reads and writes are
 * reported beside it (AWS prompt-caching guide: total input = inputTokens +
 * cacheReadInputTokens + cacheWriteInputTokens; TokenUsage API reference lists them as
 * separate fields). The prompt is their sum, so nothing is counted twice.
 */
export function usageOf(u: WireUsage | null | undefined): Usage | undefined {
  if (!u || typeof u.inputTokens !== "number") return undefined;
  const read = u.cacheReadInputTokens ?? 0;
  const write = u.cacheWriteInputTokens ?? 0;
  const prompt = u.inputTokens + read + write;
  const completion = u.outputTokens ?? 0;
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  // Reads and writes each billed at their own price (src/core/money.ts costOf).
  if (read) usage.prompt_tokens_details = { cached_tokens: read };
  if (write) usage.cache_write_tokens = write;
  return usage;
}

/**
 * StopReason: end_turn, tool_use, max_tokens, stop_sequence, guardrail_intervened,
 * content_filtered, malformed_model_output, malformed_tool_use, model_context_window_exceeded.
 * A `tool_use` stop for the forced response_format tool is an answer: "stop".
 */
export function finishReason(stopReason: unknown, answeredByJsonTool = false): Exclude<FinishReason, null> {
  if (stopReason === "max_tokens" || stopReason === "model_context_window_exceeded") return "length";
  if (stopReason === "guardrail_intervened" || stopReason === "content_filtered") return "content_filter";
  if (stopReason === "tool_use") return answeredByJsonTool ? "stop" : "tool_calls";
  return "stop";
}

function toolCall(block: WireToolUse, ids: IdMap): ToolCall {
  return { id: clientId(ids, block.toolUseId), type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } };
}

export function fromConverse(json: unknown, state: CallState = { ids: new Map() }): Completion {
  const body = readAnswer(converseSchema, json, "bedrock converse");
  let text = "";
  let answer: string | undefined;
  const calls: ToolCall[] = [];
  // Other blocks (reasoningContent, citations, ...) have no place in the chat message.
  for (const block of body.output.message.content) {
    if (typeof block.text === "string") text += block.text;
    else if (block.toolUse && state.jsonTool !== undefined && block.toolUse.name === state.jsonTool) {
      answer = JSON.stringify(block.toolUse.input ?? {}); // the forced tool's input is the answer
    } else if (block.toolUse) calls.push(toolCall(block.toolUse, state.ids));
  }
  return {
    choices: [
      {
        index: 0,
        // A forced tool call has no text before it; should a model add some, the JSON alone is the answer.
        content: answer ?? (text || (calls.length ? null : "")),
        tool_calls: calls.length ? calls : undefined,
        finish_reason: finishReason(body.stopReason, answer !== undefined && !calls.length),
      },
    ],
    usage: usageOf(body.usage),
  };
}
