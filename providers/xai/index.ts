/**
 * xAI (https://docs.x.ai/docs/key-information/consumption-and-rate-limits): "reasoning token
 * consumption will be counted separately from completion_tokens, but will be counted in the
 * total_tokens". Reasoning is billed as output, so it is added to completion_tokens.
 */
import { openaiCompatible } from "../openai-compatible/index.js";

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

export default openaiCompatible({
  name: "xai",
  baseUrl: "https://api.x.ai/v1",
  apiKeyEnv: "XAI_API_KEY",
  transformResponse: countReasoning,
});
