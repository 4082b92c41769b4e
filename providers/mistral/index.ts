/** Mistral La Plateforme: the OpenAI wire format with the differences in ./wire.ts. */
import { defineProvider } from "../../src/plugin/contract.js";
import { openaiCompatible, PLAIN_DIALECT } from "../openai-compatible/index.js";
import { mistralEmbeddings } from "./embeddings.js";
import { fromMistral, mistralModels, toMistral } from "./wire.js";

const base = openaiCompatible({
  name: "mistral",
  describe: { displayName: "Mistral", byok: true, catalog: { litellm: ["mistral"], modelsDev: "mistral", genaiPrices: "mistral", embeddings: true } },
  baseUrl: "https://api.mistral.ai/v1",
  apiKeyEnv: "MISTRAL_API_KEY",
  // ChatCompletionRequest (https://docs.mistral.ai/api/#tag/chat): no logprobs, logit_bias,
  // service_tier, store, user or developer role; `metadata` is its own field too.
  features: ["tools", "tool_choice", "parallel_tool_calls", "json_object", "json_schema", "images", "image_urls", "prediction"],
  dialect: { ...PLAIN_DIALECT, passive: ["metadata"] },
  transformRequest: toMistral,
  transformResponse: fromMistral,
  embeddings: mistralEmbeddings,
});

export default defineProvider({ ...base, models: { request: base.models!.request, response: mistralModels } });
