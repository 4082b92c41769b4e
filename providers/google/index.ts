/**
 * Google Gemini API, native generateContent (https://ai.google.dev/api/generate-content).
 * The key travels in `x-goog-api-key`, never in the URL: URLs end up in logs.
 * Options: `apiVersion` (default "v1beta").
 */
import { defineProvider, type ModelInfo, type UpstreamRequest } from "../../src/plugin/contract.js";
import { classifyError } from "./errors.js";
import { toGeminiBody } from "./request.js";
import { fromGenerateContent } from "./response.js";
import { fromStream } from "./stream.js";

import { googleEmbeddings } from "./embeddings.js";
import { headers, resource, root } from "./url.js";

function modelsOf(json: unknown): ModelInfo[] {
  if (typeof json !== "object" || json === null) throw new Error("models: expected a ListModelsResponse");
  const models = (json as { models?: unknown }).models ?? []; // proto3 JSON omits an empty list
  if (!Array.isArray(models)) throw new Error("models: expected a models array");
  return models.flatMap((entry: unknown) => {
    if (typeof entry !== "object" || entry === null) return [];
    const m = entry as Record<string, unknown>;
    const methods = Array.isArray(m.supportedGenerationMethods) ? m.supportedGenerationMethods : [];
    if (typeof m.name !== "string" || !methods.includes("generateContent")) return [];
    const limit = (v: unknown) => (typeof v === "number" ? v : undefined);
    return [{ id: m.name.replace(/^models\//, ""), contextLength: limit(m.inputTokenLimit), maxOutput: limit(m.outputTokenLimit) }];
  });
}

export default defineProvider({
  name: "google",
  describe: {
    displayName: "Google Gemini",
    byok: true,
    catalog: { modelsDev: "google", genaiPrices: "google", genaiPricesOnly: /^(gemini|gemma)/, embeddings: true },
    options: ["apiVersion"],
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
    stream: (events) => fromStream(events),
  },
  classifyError,
  embeddings: googleEmbeddings,
  models: {
    // 1000 is the documented page maximum; the Gemini API lists far fewer models.
    request: (ctx) => ({ url: `${root(ctx.settings)}/models?pageSize=1000`, method: "GET", headers: headers(ctx.apiKey) }),
    response: modelsOf,
  },
});
