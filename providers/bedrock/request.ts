/**
 * Chat Completions request -> Bedrock Converse body.
 * Reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
import { type CallContext, type ChatRequest, requestedMaxTokens, unsupported } from "../../src/plugin/contract.js";
import type { CallState } from "./call-state.js";
import { rewrittenIds, systemBlocks, turns } from "./messages.js";
import { thinkingFields } from "./reasoning.js";
import { planTools } from "./tools.js";

/** Converse has one choice, no seed and no penalties: say so instead of dropping them. */
function checkSupported(req: ChatRequest): void {
  if (req.n !== undefined && req.n > 1) throw unsupported("n", "Bedrock Converse returns a single choice; n must be 1.");
  if (req.seed !== undefined) throw unsupported("seed", "Bedrock Converse has no seed parameter.");
  if (req.frequency_penalty) throw unsupported("frequency_penalty", "Bedrock Converse has no frequency penalty.");
  if (req.presence_penalty) throw unsupported("presence_penalty", "Bedrock Converse has no presence penalty.");
}

/** The instance's `maxTokens` option: the default output limit when the client gives none. */
function optionMaxTokens(options: Record<string, unknown>): number | undefined {
  return typeof options.maxTokens === "number" && options.maxTokens > 0 ? Math.floor(options.maxTokens) : undefined;
}

function inferenceConfig(req: ChatRequest, maxTokens: number | undefined): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (maxTokens !== undefined) config.maxTokens = maxTokens;
  // Converse accepts 0..1 (Anthropic, Nova, Llama alike); OpenAI's 0..2 is clamped, not rejected.
  if (req.temperature !== undefined) config.temperature = Math.min(1, Math.max(0, req.temperature));
  if (req.top_p !== undefined) config.topP = req.top_p;
  const stop = req.stop === undefined ? [] : [req.stop].flat().filter((s) => s.length > 0);
  if (stop.length) config.stopSequences = stop;
  return config;
}

export interface ConverseCall {
  body: Record<string, unknown>;
  state: CallState;
}

export function toConverse(req: ChatRequest, ctx: Pick<CallContext, "model" | "maxOutput" | "settings">): ConverseCall {
  checkSupported(req);
  const body: Record<string, unknown> = { messages: turns(req.messages, ctx.model) };
  const system = systemBlocks(req.messages);
  if (system.length) body.system = system;
  // Converse fills in the model's default when maxTokens is absent; thinking needs the number itself.
  let maxTokens = requestedMaxTokens(req) ?? optionMaxTokens(ctx.settings.options);
  const thinking = req.reasoning_effort ? thinkingFields(req, ctx.model, (maxTokens ??= ctx.maxOutput ?? 4096)) : undefined;
  if (thinking) body.additionalModelRequestFields = thinking;
  const inference = inferenceConfig(req, maxTokens);
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  const { toolConfig, jsonTool } = planTools(req);
  if (toolConfig) body.toolConfig = toolConfig;
  return { body, state: { jsonTool, ids: rewrittenIds(req.messages, ctx.model) } };
}
