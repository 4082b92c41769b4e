/**
 * `reasoning_effort` -> extended thinking for Anthropic Claude models on Bedrock, passed
 * through `additionalModelRequestFields.thinking: {type: "enabled", budget_tokens}`
 * (AWS user guide, claude-messages-extended-thinking.html; vercel/ai
 * amazon-bedrock-chat-language-model.ts). Other model families: no mapping, a 400.
 *
 * Anthropic's rules for thinking (platform.claude.com/docs/build-with-claude/extended-thinking):
 * budget_tokens >= 1024 and below max_tokens; no forced tool use; temperature only 1 and
 * top_p only 0.95..1; a tool-use loop must return the signed thinking blocks, which the
 * chat format cannot carry. Each of these is a 400 naming the field rather than an upstream one.
 */
import { type ChatRequest, unsupported } from "../../src/plugin/contract.js";

/** Shares of the output limit, as vercel/ai maps effort to a budget (provider-utils map-reasoning-to-provider.ts). */
const SHARE: Record<NonNullable<ChatRequest["reasoning_effort"]>, number> = { minimal: 0.02, low: 0.1, medium: 0.3, high: 0.6 };
const MIN_BUDGET = 1024;

const isAnthropicModel = (model: string): boolean => model.includes("anthropic.");

function checkCompatible(req: ChatRequest): void {
  if (req.tool_choice === "required" || typeof req.tool_choice === "object") {
    throw unsupported("tool_choice", "forcing a tool cannot be combined with reasoning_effort on Claude (extended thinking).");
  }
  if (req.response_format?.type === "json_object" || req.response_format?.type === "json_schema") {
    throw unsupported("response_format", "on Bedrock structured output is a forced tool, which Claude's extended thinking (reasoning_effort) does not allow.");
  }
  if (req.temperature !== undefined && req.temperature !== 1) throw unsupported("temperature", "with reasoning_effort, Claude accepts only temperature 1.");
  if (req.top_p !== undefined && req.top_p < 0.95) throw unsupported("top_p", "with reasoning_effort, Claude accepts only top_p from 0.95 to 1.");
  const lastAssistant = req.messages.findLast((m) => m.role === "assistant");
  if (lastAssistant?.tool_calls?.length) {
    throw unsupported(
      "reasoning_effort",
      "continuing a tool call with extended thinking needs Claude's signed thinking blocks, which chat messages cannot carry.",
    );
  }
}

/**
 * The thinking fields, or undefined without `reasoning_effort`. `maxTokens` is the whole
 * output limit: like OpenAI's max_completion_tokens it includes the reasoning, so the budget
 * is a share of it and the limit billing reserved for is never exceeded.
 */
export function thinkingFields(req: ChatRequest, model: string, maxTokens: number): Record<string, unknown> | undefined {
  const effort = req.reasoning_effort;
  if (!effort) return undefined;
  if (!isAnthropicModel(model)) throw unsupported("reasoning_effort", `Bedrock has no reasoning_effort mapping for '${model}' (Anthropic Claude models only).`);
  checkCompatible(req);
  if (maxTokens <= MIN_BUDGET)
    throw unsupported(
      "reasoning_effort",
      `Claude's thinking budget is at least ${MIN_BUDGET} tokens and must stay below max_completion_tokens (${maxTokens}).`,
    );
  const budget = Math.min(maxTokens - 1, Math.max(MIN_BUDGET, Math.floor(maxTokens * SHARE[effort])));
  return { thinking: { type: "enabled", budget_tokens: budget } };
}
