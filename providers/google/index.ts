/**
 * Google Gemini API, native generateContent (https://ai.google.dev/api/generate-content).
 * The key travels in `x-goog-api-key`, never in the URL: URLs end up in logs.
 * Options: `apiVersion` (default "v1beta").
 */
import { defineProvider, pulled, readAnswer, type ModelInfo, type UpstreamRequest } from "../../src/plugin/contract.js";
import { modelListSchema } from "./answer-schema.js";
import { classifyError } from "./errors.js";
import { toGeminiBody } from "./request.js";
import { fromGenerateContent } from "./response.js";
import { chunkTranslator } from "./stream.js";

import { googleEmbeddings, nativeEmbed } from "./embeddings.js";
import { nativeGemini } from "./native.js";
import { headers, resource, root } from "./url.js";

function modelsOf(json: unknown): ModelInfo[] {
  const { models } = readAnswer(modelListSchema, json, "google model list");
  return (models ?? []).flatMap((m) =>
    m.supportedGenerationMethods?.includes("generateContent")
      ? [{ id: m.name.replace(/^models\//, ""), contextLength: m.inputTokenLimit ?? undefined, maxOutput: m.outputTokenLimit ?? undefined }]
      : [],
  );
}

export default defineProvider({
  name: "google",
  describe: {
    displayName: "Google Gemini",
    byok: true,
    catalog: { litellm: ["gemini"], modelsDev: "google", genaiPrices: "google", genaiPricesOnly: /^(gemini|gemma)/, embeddings: true },
    options: ["apiVersion"],
    // Grounding with Google Search: Gemini 3 bills $14 per 1,000 search queries, earlier models $35 per
    // 1,000 grounded prompts (https://ai.google.dev/gemini-api/docs/pricing); URL context bills tokens only.
    toolCallPrices: (model) =>
      geminiGeneration(model) >= 3 ? { google_search: "14", google_search_prompt: "0" } : { google_search: "0", google_search_prompt: "35" },
  },
  // What request.ts translates. Not "image_urls": fileData takes only Files API URIs and the
  // gateway does not download; not "parallel_tool_calls": Gemini has no switch for it; not
  // "logprobs": not translated here.
  features: ["tools", "tool_choice", "json_object", "json_schema", "images", "reasoning_effort"],
  defaults: { baseUrl: "https://generativelanguage.googleapis.com", apiKeyEnv: "GEMINI_API_KEY" },
  chat: {
    request(req, ctx): UpstreamRequest {
      const method = ctx.stream ? "streamGenerateContent?alt=sse" : "generateContent";
      return {
        url: `${root(ctx.settings)}/${resource(ctx.model)}:${method}`,
        headers: { "content-type": "application/json", ...headers(ctx.apiKey) },
        body: JSON.stringify(toGeminiBody(req, ctx.model)),
      };
    },
    response: (json) => fromGenerateContent(json),
    stream: (events) => pulled(events, chunkTranslator()),
    // SSE relayed by push (src/upstream/relay.ts), as for OpenAI-format providers.
    streamEvents: () => chunkTranslator(),
  },
  classifyError,
  embeddings: googleEmbeddings,
  // /v1beta requests travel as the client sent them (docs/gemini.md).
  native: { gemini: { ...nativeGemini, embed: nativeEmbed } },
  models: {
    // 1000 is the documented page maximum; the Gemini API lists far fewer models.
    request: (ctx) => ({ url: `${root(ctx.settings)}/models?pageSize=1000`, method: "GET", headers: headers(ctx.apiKey) }),
    response: modelsOf,
  },
});

/** The major version of a `gemini-<n>...` id; other ids (aliases such as gemini-flash-latest) count as current. */
function geminiGeneration(model: string): number {
  const major = /^(?:models\/)?gemini-(\d+)/.exec(model)?.[1];
  return major ? Number(major) : Infinity;
}
