/**
 * DeepSeek (https://api-docs.deepseek.com, "Your first API call" and "Create Chat Completion").
 * The base URL is the one its docs give the OpenAI SDK (`/v1` is an optional alias). The request
 * has no `n` and no `seed`; `prompt_tokens` already equals prompt_cache_hit_tokens +
 * prompt_cache_miss_tokens. The cache hits are DeepSeek's own field (its usage object documents
 * no prompt_tokens_details): they become `cached_tokens`, billed at the cache-hit price.
 * Of the superset it documents tools, tool_choice (none/auto/required or a named function),
 * `response_format` json_object (no json_schema), `logprobs` / `top_logprobs`; every message's
 * content is a string (no image parts), roles are system, user, assistant and tool, and the
 * limit is `max_tokens`. No parallel_tool_calls, logit_bias, user or metadata.
 */
import { unsupported, upstreamFailure } from "../../src/plugin/contract.js";
import { openaiCompatible, PLAIN_DIALECT } from "../openai-compatible/index.js";

export default openaiCompatible({
  name: "deepseek",
  describe: { displayName: "DeepSeek", byok: true, catalog: { litellm: ["deepseek"], modelsDev: "deepseek", genaiPrices: "deepseek" } },
  baseUrl: "https://api.deepseek.com",
  apiKeyEnv: "DEEPSEEK_API_KEY",
  features: ["tools", "tool_choice", "json_object", "logprobs"],
  dialect: { ...PLAIN_DIALECT, textOnly: ["system", "developer", "user", "assistant", "tool"] },
  transformRequest({ n, ...body }) {
    if (typeof n === "number" && n > 1) throw unsupported("n", "DeepSeek returns one choice per request");
    if (body.seed !== undefined) throw unsupported("seed", "DeepSeek's chat API has no seed parameter");
    return body;
  },
  // "insufficient_system_resource": generation was cut off for lack of capacity. Not an answer: fail over.
  transformResponse(json) {
    // Not yet checked: a body that is not the format is left to the schema (a 502), never a TypeError here.
    const choices: unknown = (json as { choices?: unknown } | null)?.choices;
    if (Array.isArray(choices) && choices.some((c: { finish_reason?: unknown } | null) => c?.finish_reason === "insufficient_system_resource")) {
      throw upstreamFailure("failure", { retryable: true, detail: "deepseek: insufficient_system_resource" });
    }
    return withCacheHits(json);
  },
});

interface DeepSeekUsage {
  prompt_cache_hit_tokens?: unknown;
  prompt_tokens_details?: unknown;
}

/** `prompt_cache_hit_tokens` where OpenAI puts cached tokens, unless the body already has them there. */
function withCacheHits(json: unknown): unknown {
  const body = json as { usage?: DeepSeekUsage | null } | null;
  const u = body?.usage;
  if (!u || u.prompt_cache_hit_tokens === undefined || u.prompt_tokens_details) return json;
  return { ...body, usage: { ...u, prompt_tokens_details: { cached_tokens: u.prompt_cache_hit_tokens } } };
}
