/** Mistral La Plateforme: the OpenAI wire format with the differences in ./wire.ts. */
import { defineProvider } from "../../src/provider.js";
import { openaiCompatible } from "../openai-compatible/index.js";
import { fromMistral, mistralModels, toMistral } from "./wire.js";

const base = openaiCompatible({
  name: "mistral",
  baseUrl: "https://api.mistral.ai/v1",
  apiKeyEnv: "MISTRAL_API_KEY",
  transformRequest: toMistral,
  transformResponse: fromMistral,
});

export default defineProvider({ ...base, models: { request: base.models!.request, response: mistralModels } });
