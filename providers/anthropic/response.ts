/** A Messages API `message` into the internal Completion; finish reasons and usage shared with the stream. */
import { readAnswer, type Completion, type FinishReason, type ToolCall, type Usage } from "../../src/plugin/contract.js";
import { messageSchema, type WireUsage } from "./answer-schema.js";
import { fromAnthropicId } from "./tool-ids.js";

/**
 * Stop reasons (https://docs.claude.com/en/docs/build-with-claude/handling-stop-reasons):
 * `refusal` is a stop for safety (OpenAI's content_filter, as vercel/ai's
 * map-anthropic-stop-reason.ts maps it); `tool_use` of the forced JSON tool is the answer
 * itself, so a plain stop. end_turn, stop_sequence, pause_turn and later reasons: stop.
 */
export function finishReason(stop: string | null | undefined, jsonTool?: string): FinishReason {
  if (!stop) return null;
  if (stop === "max_tokens" || stop === "model_context_window_exceeded") return "length";
  if (stop === "tool_use") return jsonTool ? "stop" : "tool_calls";
  if (stop === "refusal") return "content_filter";
  return "stop";
}

/**
 * `input_tokens` excludes cache reads and writes: the prompt is all three
 * (https://docs.claude.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance).
 * Reads are `cached_tokens`, writes `cache_write_tokens`, each billed at its own price.
 * Thinking tokens are inside output_tokens and not reported apart.
 */
export function usageOf(u: WireUsage | null | undefined): Usage | undefined {
  if (!u || typeof u.input_tokens !== "number") return undefined;
  const read = u.cache_read_input_tokens ?? 0;
  const write = u.cache_creation_input_tokens ?? 0;
  const prompt = u.input_tokens + read + write;
  const completion = u.output_tokens ?? 0;
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (read) usage.prompt_tokens_details = { cached_tokens: read };
  if (write) usage.cache_write_tokens = write;
  const calls = serverToolCalls(u.server_tool_use);
  if (calls) usage.tool_calls = calls;
  return usage;
}

/**
 * `server_tool_use: {web_search_requests: 2, web_fetch_requests: 0}` as per-call counts by tool
 * (`web_search: 2`): every `<tool>_requests` field, so a server tool added later is counted too
 * (and billed 0, said once, until it has a price). Counts are checked by the core.
 */
function serverToolCalls(use: Record<string, unknown> | null | undefined): Record<string, number> | undefined {
  if (!use) return undefined;
  const calls: Record<string, number> = {};
  for (const [field, n] of Object.entries(use)) {
    const tool = /^([a-z][a-z0-9_]*)_requests$/.exec(field)?.[1];
    if (tool && n !== 0 && n != null) calls[tool] = n as number;
  }
  return Object.keys(calls).length ? calls : undefined;
}

/**
 * Text blocks concatenate; tool_use blocks become tool calls (a tool without input gets "{}");
 * thinking and server-tool blocks are not OpenAI's. With a forced JSON tool, its input is the
 * content and text around it is left out (as vercel/ai does).
 */
export function fromMessage(json: unknown, jsonTool?: string): Completion {
  const msg = readAnswer(messageSchema, json, "anthropic message");
  let text: string | null = null;
  const calls: ToolCall[] = [];
  for (const b of msg.content) {
    if (b.type === "text" && !jsonTool) text = (text ?? "") + b.text;
    if (b.type !== "tool_use") continue;
    const args = JSON.stringify(b.input ?? {});
    if (jsonTool && b.name === jsonTool) text = args;
    else calls.push({ id: fromAnthropicId(b.id), type: "function", function: { name: b.name, arguments: args } });
  }
  return {
    id: msg.id ?? undefined,
    choices: [
      {
        index: 0,
        content: text ?? (calls.length > 0 ? null : ""),
        tool_calls: calls.length > 0 ? calls : undefined,
        finish_reason: finishReason(msg.stop_reason, jsonTool),
      },
    ],
    usage: usageOf(msg.usage),
  };
}
