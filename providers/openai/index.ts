/**
 * OpenAI (https://platform.openai.com/docs/api-reference/chat/create): the whole superset as it
 * is. Reasoning models reject `max_tokens`; `max_completion_tokens` works for every chat model,
 * so the limit always goes out under that name.
 */
import { defineProvider } from "../../src/plugin/contract.js";
import { OPENAI_DIALECT, openaiCompatible } from "../openai-compatible/index.js";

const base = openaiCompatible({
  name: "openai",
  describe: {
    displayName: "OpenAI",
    byok: true,
    openaiModels: true,
    catalog: { litellm: ["openai"], modelsDev: "openai", genaiPrices: "openai", embeddings: true },
    // Tool calls (https://platform.openai.com/docs/pricing#built-in-tools): web search $10 per 1,000 calls,
    // $25 on the non-reasoning gpt-4o / gpt-4.1 models; file search $2.50 per 1,000 calls.
    toolCallPrices: (model) => ({ web_search: /^gpt-4(o|\.1)/.test(model) ? "25" : "10", file_search: "2.5" }),
  },
  baseUrl: "https://api.openai.com/v1",
  apiKeyEnv: "OPENAI_API_KEY",
  dialect: { ...OPENAI_DIALECT, outputLimit: "max_completion_tokens" },
  // https://platform.openai.com/docs/api-reference/embeddings/create: dimensions (text-embedding-3
  // and later), encoding_format base64, token-id input, user; 2048 inputs per call.
  embeddings: { user: true, maxBatch: 2048 },
});

export default defineProvider({
  ...base,
  // https://platform.openai.com/docs/api-reference/responses/create: /v1/responses goes as the
  // client sent it (docs/responses.md "Native or translated").
  native: {
    responses: {
      request: (body, ctx) => ({
        url: `${ctx.settings.baseUrl.replace(/\/+$/, "")}/responses`,
        headers: { "content-type": "application/json", ...(ctx.apiKey && { authorization: `Bearer ${ctx.apiKey}` }) },
        body: JSON.stringify(body),
      }),
    },
  },
});
