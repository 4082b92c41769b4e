/**
 * Fireworks AI (https://docs.fireworks.ai/api-reference/post-chatcompletions and
 * https://docs.fireworks.ai/tools-sdks/openai-compatibility): usage always comes in the chunk
 * that has finish_reason set, so `stream_options` is not sent; `max_tokens` defaults to 200
 * there, so a request that gives none is sent the instance's `maxTokens` option, else the
 * output budget billing reserved (the catalog's output limit).
 * Of the superset the reference documents tools, tool_choice, response_format json_object /
 * json_schema in OpenAI's form (https://docs.fireworks.ai/structured-responses/structured-response-formatting),
 * image parts for vision models, `reasoning_effort` (low/medium/high) and `user`. Its logprobs
 * answer is the completions form (`tokens`, `token_logprobs`), not OpenAI's, so logprobs is not
 * offered; no parallel_tool_calls, logit_bias or developer role.
 */
import { openaiCompatible, PLAIN_DIALECT } from "../openai-compatible/index.js";

export default openaiCompatible({
  name: "fireworks",
  describe: {
    displayName: "Fireworks AI",
    byok: true,
    catalog: { litellm: ["fireworks_ai"], modelsDev: "fireworks-ai", genaiPrices: "fireworks" },
    options: ["maxTokens"],
  },
  baseUrl: "https://api.fireworks.ai/inference/v1",
  apiKeyEnv: "FIREWORKS_API_KEY",
  features: ["tools", "tool_choice", "json_object", "json_schema", "images", "image_urls", "reasoning_effort"],
  dialect: { ...PLAIN_DIALECT, textOnly: ["system", "developer", "assistant", "tool"], passive: ["user"] },
  // POST /inference/v1/embeddings (https://docs.fireworks.ai/api-reference/creates-an-embedding-vector-representing-the-input-text):
  // OpenAI's form with `dimensions` (Matryoshka models); no encoding_format or token-id input documented.
  embeddings: { features: ["dimensions"] },
  transformRequest({ stream_options: _usageAlwaysSent, ...body }, ctx) {
    const option = ctx.settings.options.maxTokens;
    const fallback = typeof option === "number" ? option : ctx.maxOutput;
    // Fireworks' efforts are low, medium and high.
    if (body.reasoning_effort === "minimal") body.reasoning_effort = "low";
    return body.max_tokens === undefined && fallback !== undefined ? { ...body, max_tokens: fallback } : body;
  },
});
