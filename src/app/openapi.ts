/**
 * GET /v1/openapi.json, generated from the zod schemas that validate requests, so the
 * description cannot drift from the code.
 */
import { z } from "zod";
import { responsesOpenApi } from "../endpoints/responses/openapi.js";
import { KeyInfo } from "../endpoints/key/route.js";
import {
  ChatChunk,
  ChatCompletion,
  ErrorBody,
  ModelEntry,
  ModelList,
  OpenAIChatChunk,
  OpenAIChatCompletion,
  OpenAIChatRequest,
  OpenAIErrorBody,
  StrictChatRequest,
} from "../core/chat-request.js";

import { embeddingsOpenApi } from "../endpoints/embeddings/schema.js";

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any", io: "input" });

const errorResponse = (description: string) => ({
  description,
  headers: { "X-Request-Id": { schema: { type: "string" } } },
  content: { "application/json": { schema: { oneOf: [{ $ref: "#/components/schemas/Error" }, { $ref: "#/components/schemas/OpenAIError" }] } } },
});

const rateLimitHeaders = Object.fromEntries(
  ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"].map((h) => [h, { schema: { type: "integer" } }]),
);

const describe = (schema: Record<string, unknown>, description: string) => ({ ...schema, description });

/** The strict form, or the `openai` one: which one a server speaks is its `server.compat`. */
const either = (strict: string, openai: string) => ({ oneOf: [{ $ref: `#/components/schemas/${strict}` }, { $ref: `#/components/schemas/${openai}` }] });

export function openApiDocument() {
  const bearer = [{ bearerAuth: [] }];
  const responses = responsesOpenApi({ json, errorResponse, rateLimitHeaders, bearer });
  const embeddings = embeddingsOpenApi();
  return {
    openapi: "3.1.0",
    info: { title: "LLM gateway", version: "1.0.0", description: "OpenAI-compatible chat completions across many providers." },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
      schemas: {
        ChatCompletionRequest: describe(json(StrictChatRequest), "api.md's request (`server.compat: strict`, the default)."),
        OpenAIChatCompletionRequest: describe(
          json(OpenAIChatRequest),
          "The OpenAI request superset (`server.compat: openai`; `passthrough` also drops unknown top-level fields). An explicit null for an optional field means absent.",
        ),
        ChatCompletionResponse: json(ChatCompletion),
        OpenAIChatCompletionResponse: json(OpenAIChatCompletion),
        ChatCompletionChunk: json(ChatChunk),
        OpenAIChatCompletionChunk: json(OpenAIChatChunk),
        Model: json(ModelEntry),
        KeyInfo: describe(
          json(KeyInfo),
          "The calling key: limits, budget and balance; money as decimal USD strings. `budget.remaining` = limit - spent in the period - open holds.",
        ),
        ModelList: json(ModelList),
        Error: describe(json(ErrorBody), "Under `server.compat: strict`."),
        ...responses.schemas,
        OpenAIError: describe(json(OpenAIErrorBody), "Under `server.compat: openai` or `passthrough`: adds `param`, the offending field's path."),
        ...embeddings.schemas,
      },
    },
    paths: {
      ...embeddings.paths,
      "/v1/chat/completions": {
        post: {
          security: bearer,
          requestBody: { required: true, content: { "application/json": { schema: either("ChatCompletionRequest", "OpenAIChatCompletionRequest") } } },
          responses: {
            "200": {
              description: "A completion (JSON), or with stream=true a text/event-stream of `data: <ChatCompletionChunk>` lines ending with `data: [DONE]`.",
              headers: rateLimitHeaders,
              content: {
                "application/json": { schema: either("ChatCompletionResponse", "OpenAIChatCompletionResponse") },
                "text/event-stream": { schema: either("ChatCompletionChunk", "OpenAIChatCompletionChunk") },
              },
            },
            ...Object.fromEntries(
              (
                [
                  ["400", "Invalid request"],
                  ["401", "Invalid API key"],
                  ["402", "Insufficient credits"],
                  ["404", "Model not found"],
                  ["413", "Request too large"],
                  ["429", "Rate limited"],
                  ["503", "Upstream unavailable"],
                ] as const
              ).map(([s, d]) => [s, errorResponse(d)]),
            ),
          },
        },
      },
      "/v1/key": {
        get: {
          security: bearer,
          responses: {
            "200": {
              description: "What the calling key may still do",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: { $ref: "#/components/schemas/KeyInfo" } } },
            },
            "401": errorResponse("Invalid API key"),
            "429": errorResponse("Rate limited"),
          },
        },
      },
      "/v1/models": {
        get: {
          security: bearer,
          responses: {
            "200": {
              description: "Models usable by this account",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: { $ref: "#/components/schemas/ModelList" } } },
            },
            "401": errorResponse("Invalid API key"),
            "429": errorResponse("Rate limited"),
          },
        },
      },
      "/v1/models/{id}": {
        get: {
          security: bearer,
          parameters: [
            {
              name: "id",
              in: "path",
              required: true,
              schema: { type: "string" },
              description: "A model id or an alias; a vendor/model id's slash may stand as it is.",
            },
          ],
          responses: {
            "200": {
              description: "One entry of GET /v1/models",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: { $ref: "#/components/schemas/Model" } } },
            },
            "401": errorResponse("Invalid API key"),
            "404": errorResponse("Model not found (code model_not_found)"),
            "429": errorResponse("Rate limited"),
          },
        },
      },
      ...responses.paths,
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
    },
  };
}
