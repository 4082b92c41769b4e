/**
 * `reasoning_effort` as extended thinking, `thinking: {type: "enabled", budget_tokens}`
 * (https://docs.claude.com/en/docs/build-with-claude/extended-thinking). The budget is a share
 * of `max_tokens` as vercel/ai maps effort to a budget (map-reasoning-to-provider.ts: minimal 2%,
 * low 10%, medium 30%, high 60%; openai-surface.md D1), at least the API's minimum of 1024 and
 * below `max_tokens`. Unlike vercel/ai the budget is not added to `max_tokens`: OpenAI's
 * `max_completion_tokens` already includes reasoning tokens, and billing reserved for that limit.
 * The thinking blocks themselves never reach the client (response.ts, stream.ts).
 *
 * What the docs rule out while thinking is on, each a 400 naming the field rather than a
 * silent change: temperature other than 1 (and top_k), top_p below 0.95, a tool_choice that
 * forces tool use ("Thinking may not be enabled when tool_choice forces tool use", so also
 * the forced tool behind response_format), and continuing a tool loop, because "a final
 * assistant message must start with a thinking block" whose signed text OpenAI's format
 * cannot carry back.
 */
import { type ChatRequest, unsupported } from "../../src/plugin/contract.js";
import type { Turn } from "./messages.js";
import type { AnthropicToolChoice } from "./tools.js";

const MIN_BUDGET = 1024;
const SHARE = { minimal: 0.02, low: 0.1, medium: 0.3, high: 0.6 } as const;

export interface Thinking {
  type: "enabled";
  budget_tokens: number;
}

export function thinkingOf(req: ChatRequest, maxTokens: number): Thinking | undefined {
  const effort = req.reasoning_effort;
  if (!effort) return undefined;
  const budget = Math.max(MIN_BUDGET, Math.floor(maxTokens * SHARE[effort]));
  if (budget >= maxTokens) {
    throw unsupported(
      "reasoning_effort",
      `Anthropic's thinking needs a budget of at least ${MIN_BUDGET} tokens below max_tokens; raise max_tokens above ${budget} or leave reasoning_effort out.`,
    );
  }
  return { type: "enabled", budget_tokens: budget };
}

/** temperature and top_p as Anthropic takes them, with or without thinking. */
export function samplingOf(req: ChatRequest, thinking: Thinking | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  // Anthropic accepts 0..1 where OpenAI allows 0..2: clamped, not rejected (docs/limits.md).
  const temperature = req.temperature === undefined ? undefined : Math.min(Math.max(req.temperature, 0), 1);
  if (!thinking) {
    if (temperature !== undefined) out.temperature = temperature;
    if (req.top_p !== undefined) out.top_p = req.top_p;
    return out;
  }
  // 1 is the default, so leaving it out changes nothing.
  if (temperature !== undefined && temperature !== 1)
    throw unsupported("temperature", "Anthropic does not take a temperature with extended thinking (reasoning_effort); send 1 or leave it out.");
  if (req.top_p !== undefined) {
    if (req.top_p < 0.95) throw unsupported("top_p", "Anthropic takes top_p only between 0.95 and 1 with extended thinking (reasoning_effort).");
    out.top_p = req.top_p;
  }
  return out;
}

/** The rest of the request must leave thinking possible. */
export function assertThinkingFits(req: ChatRequest, choice: AnthropicToolChoice | undefined, turns: Turn[]): void {
  if (choice?.type === "any" || choice?.type === "tool") {
    const field = req.response_format && req.response_format.type !== "text" ? "response_format" : "tool_choice";
    throw unsupported(field, "Anthropic cannot force a tool (which is also how it produces JSON output) while extended thinking (reasoning_effort) is on.");
  }
  const last = turns.at(-1);
  if (last?.role === "user" && last.content.some((b) => b.type === "tool_result")) {
    throw unsupported(
      "reasoning_effort",
      "Anthropic needs the signed thinking block of the turn that called the tools, which OpenAI's message format cannot carry; leave reasoning_effort out while returning tool results.",
    );
  }
}
