/**
 * xAI (https://docs.x.ai/docs/key-information/consumption-and-rate-limits): "reasoning token
 * consumption will be counted separately from completion_tokens, but will be counted in the
 * total_tokens". Reasoning is billed as output, so it is added to completion_tokens.
 * Its chat API (https://docs.x.ai/docs/api-reference#chat-completions) is OpenAI's with tools,
 * tool_choice, parallel_tool_calls, response_format json_object / json_schema, image parts,
 * logprobs / top_logprobs, logit_bias, max_completion_tokens and user; `reasoning_effort` takes
 * only 'low' and 'high' (grok-3-mini). No service_tier, store, prediction or developer role.
 */
import { unsupported } from "../../src/plugin/contract.js";
import { openaiCompatible, PLAIN_DIALECT } from "../openai-compatible/index.js";

interface XaiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** Only when the totals show reasoning outside completion_tokens: OpenAI-style totals stay untouched. */
function countReasoning(json: unknown): unknown {
  const body = json as { usage?: XaiUsage | null } | null;
  const u = body?.usage;
  const reasoning = u?.completion_tokens_details?.reasoning_tokens ?? 0;
  if (!u || reasoning <= 0 || u.total_tokens !== (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0) + reasoning) return json;
  return { ...body, usage: { ...u, completion_tokens: (u.completion_tokens ?? 0) + reasoning } };
}

/** OpenAI's efforts onto xAI's two: minimal is its low; medium has no counterpart. */
function toXai(body: Record<string, unknown>): Record<string, unknown> {
  const effort = body.reasoning_effort;
  if (effort === undefined || effort === "low" || effort === "high") return body;
  if (effort === "minimal") return { ...body, reasoning_effort: "low" };
  throw unsupported("reasoning_effort", `xAI takes 'low' or 'high', not '${String(effort)}'`);
}

export default openaiCompatible({
  name: "xai",
  describe: { displayName: "xAI", byok: true, catalog: { litellm: ["xai"], modelsDev: "xai", genaiPrices: "x-ai" } },
  baseUrl: "https://api.x.ai/v1",
  apiKeyEnv: "XAI_API_KEY",
  features: ["tools", "tool_choice", "parallel_tool_calls", "json_object", "json_schema", "images", "image_urls", "logprobs", "logit_bias", "reasoning_effort"],
  dialect: { ...PLAIN_DIALECT, outputLimit: "as_sent", textOnly: ["system", "developer", "assistant", "tool"], passive: ["user"] },
  transformRequest: toXai,
  transformResponse: countReasoning,
});
