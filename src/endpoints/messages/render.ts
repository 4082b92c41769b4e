/**
 * The translated answer as Anthropic's `message` object (docs/messages.md): text then tool_use
 * blocks, the stop reason in Anthropic's terms, and usage in Anthropic's buckets (input tokens
 * exclude cache reads and writes). Shared with the stream (stream.ts), so the SDK's accumulated
 * stream equals the JSON answer.
 */
import type { FinishReason, Usage } from "../../core/chat-request.js";
import type { Completion } from "../../plugin/contract.js";

export interface MessageHead {
  id: string;
  model: string;
}

export interface WireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** Anthropic's usage buckets from the gateway's record: `input_tokens` is the prompt without cache reads and writes. */
export function wireUsage(u: Usage): WireUsage {
  const read = u.prompt_tokens_details?.cached_tokens ?? 0;
  const write = u.cache_write_tokens ?? 0;
  return {
    input_tokens: u.prompt_tokens - read - write,
    output_tokens: u.completion_tokens,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
  };
}

export type StopReason = "end_turn" | "max_tokens" | "tool_use" | "refusal";

export function stopReason(finish: FinishReason | undefined): StopReason {
  if (finish === "length") return "max_tokens";
  if (finish === "tool_calls") return "tool_use";
  if (finish === "content_filter") return "refusal";
  return "end_turn";
}

/** A tool call's arguments as the `input` object (an unparsable string: `{}`, as Anthropic never sends one). */
function inputOf(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args || "{}");
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

export function messageOf(head: MessageHead, c: Completion, usage: Usage) {
  const choice = c.choices[0];
  const content: Array<Record<string, unknown>> = [];
  if (choice?.content) content.push({ type: "text", text: choice.content });
  for (const t of choice?.tool_calls ?? []) content.push({ type: "tool_use", id: t.id, name: t.function.name, input: inputOf(t.function.arguments) });
  return {
    id: head.id,
    type: "message",
    role: "assistant",
    model: head.model,
    content,
    stop_reason: stopReason(choice?.finish_reason),
    stop_sequence: null,
    usage: wireUsage(usage),
  };
}
