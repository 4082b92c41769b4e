/**
 * An OpenAI `chat.completion` body into the gateway's internal shape
 * (https://platform.openai.com/docs/api-reference/chat/object): content, tool calls, the
 * finish reason, and what the `openai` dialect shows besides (`message.refusal`,
 * `choices[].logprobs`). Streamed chunks are read in ./stream.ts.
 */
import { readAnswer, type Completion, type FinishReason, type ToolCall, type Usage } from "../../src/plugin/contract.js";
import { completionSchema, type WireContent, type WireUsage } from "./answer-schema.js";

/**
 * OpenAI's reasons, plus the legacy `function_call`; `content_filter` stays itself (the core
 * shows it as `stop` under strict). Other providers' extra reasons (Together's `eos`) are stops.
 */
export function finishReason(value: string | null | undefined): FinishReason {
  if (value === "length") return "length";
  if (value === "content_filter") return "content_filter";
  if (value === "tool_calls" || value === "function_call") return "tool_calls";
  return value ? "stop" : null;
}

/**
 * OpenAI's prompt_tokens already includes cached tokens (`prompt_tokens_details.cached_tokens`)
 * and completion_tokens reasoning ones (`completion_tokens_details.reasoning_tokens`)
 * (https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage).
 */
export function usageOf(u: WireUsage | null | undefined): Usage | undefined {
  if (!u || u.prompt_tokens === undefined) return undefined;
  // Numbers by the schema; the core refuses those that are not counts (src/billing/usage-check.ts).
  const completion = u.completion_tokens ?? 0;
  const usage: Usage = { prompt_tokens: u.prompt_tokens, completion_tokens: completion, total_tokens: u.prompt_tokens + completion };
  const cached = u.prompt_tokens_details?.cached_tokens;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (cached != null) usage.prompt_tokens_details = { cached_tokens: cached };
  if (reasoning != null) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  return usage;
}

/**
 * A string, or (Mistral's magistral models, https://docs.mistral.ai/api/#tag/chat) an array of
 * chunks of which only `text` ones are the answer; `thinking` chunks are reasoning, not content.
 */
export function contentText(content: WireContent): string | null {
  if (typeof content === "string") return content;
  if (!content) return null;
  const texts = content.flatMap((c) => (c.type === "text" ? [c.text] : []));
  return texts.length ? texts.join("") : null;
}

/** A tool with no parameters may come back with `arguments: ""`, which JSON.parse rejects (openai/openai-agents-js#664). */
type WireCall = { id: string; function: { name: string; arguments?: string | null } };

function toolCalls(calls: WireCall[] | null | undefined): ToolCall[] | undefined {
  if (!calls?.length) return undefined;
  return calls.map((c) => ({ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments || "{}" } }));
}

/** Only an object is a logprobs answer; `null` (not asked for) is what the renderer writes anyway. */
export const logprobsOf = (value: unknown): unknown => (value !== null && typeof value === "object" ? value : undefined);

export function fromChatCompletion(json: unknown, provider: string): Completion {
  const body = readAnswer(completionSchema, json, `${provider} chat.completion`);
  return {
    id: body.id ?? undefined,
    choices: body.choices.map((c, i) => ({
      index: c.index ?? i,
      content: contentText(c.message.content),
      tool_calls: toolCalls(c.message.tool_calls),
      finish_reason: finishReason(c.finish_reason),
      ...(typeof c.message.refusal === "string" && { refusal: c.message.refusal }),
      ...(logprobsOf(c.logprobs) !== undefined && { logprobs: c.logprobs }),
    })),
    usage: usageOf(body.usage),
  };
}
