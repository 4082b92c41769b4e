/**
 * Cerebras Inference (https://inference-docs.cerebras.ai/resources/openai): "mostly compatible
 * with OpenAI's client libraries"; the OpenAI SDK is pointed at https://api.cerebras.ai/v1 with
 * the key from CEREBRAS_API_KEY. Its API has no `developer` role: system messages act at that
 * level, so a developer turn goes out as a system message. Of the superset only tools and
 * response_format (json_object, json_schema) are declared: the models are text-only, and
 * `parallel_tool_calls`, `logit_bias` and `service_tier` are refused with a 400 by its
 * compatibility layer. Not a BYOK provider (docs/billing.md names eleven); prices come from
 * `@pydantic/genai-prices` (models.dev's tokenlens package has no Cerebras module).
 */
import { openaiCompatible, PLAIN_DIALECT } from "../openai-compatible/index.js";

export default openaiCompatible({
  name: "cerebras",
  describe: { displayName: "Cerebras", catalog: { litellm: ["cerebras"], genaiPrices: "cerebras" } },
  baseUrl: "https://api.cerebras.ai/v1",
  apiKeyEnv: "CEREBRAS_API_KEY",
  features: ["tools", "json_object", "json_schema"],
  dialect: PLAIN_DIALECT,
});
