/**
 * GET /v1/openapi.json, assembled from each route's part (every endpoint folder describes its
 * own paths from the zod schemas that validate its requests, so the description cannot drift
 * from the code) plus the routes the app serves itself (health, this document).
 */
import { chatOpenApi } from "../endpoints/chat/openapi.js";
import { embeddingsOpenApi } from "../endpoints/embeddings/schema.js";
import { geminiOpenApi } from "../endpoints/gemini/openapi.js";
import { keyOpenApi } from "../endpoints/key/openapi.js";
import { messagesOpenApi } from "../endpoints/messages/openapi.js";
import { modelsOpenApi } from "../endpoints/models/openapi.js";
import { responsesOpenApi } from "../endpoints/responses/openapi.js";
import { ErrorBody, OpenAIErrorBody } from "../http/error-schema.js";
import { describe, json, type OpenApiPart } from "../http/openapi-parts.js";

const appPaths = {
  "/v1/health/providers": {
    get: {
      security: [],
      responses: {
        "200": {
          description:
            "Provider health from live traffic; `limits` says whether rate limits are shared by every process (`shared`, Redis) or counted in this one (`per_process`)",
        },
      },
    },
  },
  "/v1/openapi.json": { get: { security: [], responses: { "200": { description: "This document" } } } },
};

export function openApiDocument() {
  const parts: OpenApiPart[] = [chatOpenApi(), keyOpenApi(), modelsOpenApi(), responsesOpenApi(), embeddingsOpenApi(), messagesOpenApi(), geminiOpenApi()];
  return {
    openapi: "3.1.0",
    info: { title: "LLM gateway", version: "1.0.0", description: "OpenAI-compatible chat completions across many providers." },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer" },
        // Google's clients on /v1beta (docs/gemini.md); every key header works on every route.
        googApiKey: { type: "apiKey", in: "header", name: "x-goog-api-key" },
        googQueryKey: { type: "apiKey", in: "query", name: "key" },
      },
      schemas: Object.assign(
        {
          Error: describe(json(ErrorBody), "Under `server.compat: strict`."),
          OpenAIError: describe(json(OpenAIErrorBody), "Under `server.compat: openai` or `passthrough`: adds `param`, the offending field's path."),
        },
        ...parts.map((p) => p.schemas),
      ),
    },
    paths: Object.assign({}, ...parts.map((p) => p.paths), appPaths),
  };
}
