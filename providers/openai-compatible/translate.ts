/** OpenAI response and chunk JSON into the gateway's internal shapes, keeping only api.md's fields. */
import type { Completion, StreamDelta, ToolCallDelta } from "../../src/provider.js";
import type { FinishReason, ToolCall, Usage } from "../../src/schema.js";

interface WireUsage { prompt_tokens?: number; completion_tokens?: number }
interface WireChoice {
  index?: number;
  message?: { content?: string | null; tool_calls?: ToolCall[] };
  delta?: { content?: string | null; tool_calls?: ToolCallDelta[] };
  finish_reason?: string | null;
}
interface WireBody { id?: string; choices?: WireChoice[]; usage?: WireUsage | null }

/** `content_filter` has no place in api.md's closed set; the answer did stop. */
export function finishReason(value: string | null | undefined): FinishReason {
  if (value === "length") return "length";
  if (value === "tool_calls" || value === "function_call") return "tool_calls";
  return value ? "stop" : null;
}

/** OpenAI's prompt_tokens already includes cached tokens and completion_tokens reasoning ones. */
export function usageOf(u: WireUsage | null | undefined): Usage | undefined {
  if (!u || typeof u.prompt_tokens !== "number") return undefined;
  const completion = u.completion_tokens ?? 0;
  return { prompt_tokens: u.prompt_tokens, completion_tokens: completion, total_tokens: u.prompt_tokens + completion };
}

function toolCalls(calls: ToolCall[] | undefined): ToolCall[] | undefined {
  if (!calls?.length) return undefined;
  return calls.map((c) => ({ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments } }));
}

export function fromChatCompletion(json: unknown): Completion {
  const body = json as WireBody;
  if (!body || !Array.isArray(body.choices)) throw new Error("chat.completion: choices missing");
  return {
    id: body.id,
    choices: body.choices.map((c, i) => ({
      index: c.index ?? i,
      content: c.message?.content ?? null,
      tool_calls: toolCalls(c.message?.tool_calls),
      finish_reason: finishReason(c.finish_reason),
    })),
    usage: usageOf(body.usage),
  };
}

export function* fromChunk(json: unknown): Iterable<StreamDelta> {
  const body = json as WireBody;
  for (const c of body.choices ?? []) {
    const delta: StreamDelta = { index: c.index ?? 0 };
    if (c.delta?.content) delta.content = c.delta.content;
    if (c.delta?.tool_calls?.length) delta.tool_calls = c.delta.tool_calls.map(toolCallDelta);
    const reason = finishReason(c.finish_reason);
    if (reason) delta.finish_reason = reason;
    if (delta.content !== undefined || delta.tool_calls || delta.finish_reason) yield delta;
  }
  const usage = usageOf(body.usage);
  if (usage) yield { usage };
}

function toolCallDelta(t: ToolCallDelta): ToolCallDelta {
  const out: ToolCallDelta = { index: t.index };
  if (t.id) out.id = t.id;
  if (t.type) out.type = t.type;
  if (t.function) out.function = { name: t.function.name, arguments: t.function.arguments };
  return out;
}
