/**
 * Fireworks AI (https://docs.fireworks.ai/api-reference/post-chatcompletions and
 * https://docs.fireworks.ai/tools-sdks/openai-compatibility): usage always comes in the chunk
 * that has finish_reason set, so `stream_options` is not sent; `max_tokens` defaults to 200
 * there, so a request that gives none is sent the instance's `maxTokens` option, else the
 * output budget billing reserved (the catalog's output limit).
 */
import { openaiCompatible } from "../openai-compatible/index.js";

export default openaiCompatible({
  name: "fireworks",
  baseUrl: "https://api.fireworks.ai/inference/v1",
  apiKeyEnv: "FIREWORKS_API_KEY",
  transformRequest({ stream_options: _usageAlwaysSent, ...body }, ctx) {
    const option = ctx.settings.options.maxTokens;
    const fallback = typeof option === "number" ? option : ctx.maxOutput;
    return body.max_tokens === undefined && fallback !== undefined ? { ...body, max_tokens: fallback } : body;
  },
});
