/**
 * OpenAI `reasoning_effort` -> Gemini `generationConfig.thinkingConfig`
 * (https://ai.google.dev/gemini-api/docs/thinking, ThinkingConfig in
 * https://ai.google.dev/api/generate-content#ThinkingConfig). Gemini 2.5 takes a token
 * budget (`thinkingBudget`); Gemini 3 and later take a level (`thinkingLevel`), for which a
 * budget is only "accepted for backwards compatibility". Both mappings are vercel/ai's
 * (packages/google/src/google-language-model.ts, resolveThinkingConfig; openai-surface.md D1).
 */
import { type ChatRequest, unsupported } from "../../src/plugin/contract.js";

type Effort = NonNullable<ChatRequest["reasoning_effort"]>;

/** Generations before thinking: 1.x and 2.0. */
const NO_THINKING = /^(models\/)?gemini-(1\.|2\.0)/;
const BUDGET_GENERATION = /^(models\/)?gemini-2\.5/;

/** vercel/ai's share of the 2.5 output limit (65536) per effort, capped by the model's thinking maximum. */
const BUDGET_SHARE: Record<Effort, number> = { minimal: 0.02, low: 0.1, medium: 0.3, high: 0.6 };
const MAX_OUTPUT_25 = 65536;

export function thinkingConfig(effort: Effort | undefined, model: string): Record<string, unknown> | undefined {
  if (!effort) return undefined;
  if (NO_THINKING.test(model)) throw unsupported("reasoning_effort", `the Gemini model '${model}' does not think`);
  if (BUDGET_GENERATION.test(model)) return { thinkingBudget: budget(effort, model) };
  return { thinkingLevel: effort === "minimal" ? lowestLevel(model) : effort };
}

/** 2.5 Pro thinks up to 32768 tokens, Flash and Flash-Lite up to 24576 (thinking guide, budget table). */
function budget(effort: Effort, model: string): number {
  const cap = /2\.5-pro/.test(model) ? 32768 : 24576;
  return Math.min(cap, Math.round(MAX_OUTPUT_25 * BUDGET_SHARE[effort]));
}

/** "minimal" exists on Gemini 3 Flash; the Pro models and Flash from 3.7 start at "low" (vercel/ai). */
function lowestLevel(model: string): "minimal" | "low" {
  const name = model.split("/").at(-1) ?? model;
  if (name === "gemini-flash-latest" || /^gemini-3(\.1)?-pro(-|$)/.test(name)) return "low";
  const flash = /^gemini-(\d+)\.(\d+)-flash(?:$|-(?!lite(?:-|$)))/.exec(name);
  if (!flash) return "minimal";
  const [major, minor] = [Number(flash[1]), Number(flash[2])];
  return major > 3 || (major === 3 && minor >= 7) ? "low" : "minimal";
}
