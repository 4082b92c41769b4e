/** OpenAI. Reasoning models reject `max_tokens`; `max_completion_tokens` works for every chat model. */
import { openaiCompatible } from "../openai-compatible/index.js";

export default openaiCompatible({
  name: "openai",
  baseUrl: "https://api.openai.com/v1",
  apiKeyEnv: "OPENAI_API_KEY",
  transformRequest({ max_tokens, ...body }) {
    return max_tokens === undefined ? body : { ...body, max_completion_tokens: max_tokens };
  },
});
