/**
 * GET /v1/openapi.json, generated from the zod schemas that validate requests, so the
 * description cannot drift from the code.
 */
import { z } from "zod";
import { ChatChunk, ChatCompletion, ChatRequest, ErrorBody, ModelList } from "./schema.js";

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any", io: "input" });

const errorResponse = (description: string) => ({
  description,
  headers: { "X-Request-Id": { schema: { type: "string" } } },
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

const rateLimitHeaders = Object.fromEntries(
  ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"].map((h) => [h, { schema: { type: "integer" } }]),
);

export function openApiDocument() {
  const bearer = [{ bearerAuth: [] }];
  return {
    openapi: "3.1.0",
    info: { title: "LLM gateway", version: "1.0.0", description: "OpenAI-compatible chat completions across many providers." },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
      schemas: {
        ChatCompletionRequest: json(ChatRequest),
        ChatCompletionResponse: json(ChatCompletion),
        ChatCompletionChunk: json(ChatChunk),
        ModelList: json(ModelList),
        Error: json(ErrorBody),
      },
    },
    paths: {
      "/v1/chat/completions": {
        post: {
          security: bearer,
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/ChatCompletionRequest" } } } },
          responses: {
            "200": {
              description: "A completion (JSON), or with stream=true a text/event-stream of `data: <ChatCompletionChunk>` lines ending with `data: [DONE]`.",
              headers: rateLimitHeaders,
              content: {
                "application/json": { schema: { $ref: "#/components/schemas/ChatCompletionResponse" } },
                "text/event-stream": { schema: { $ref: "#/components/schemas/ChatCompletionChunk" } },
              },
            },
            ...Object.fromEntries(
              ([["400", "Invalid request"], ["401", "Invalid API key"], ["402", "Insufficient credits"], ["404", "Model not found"], ["413", "Request too large"], ["429", "Rate limited"], ["503", "Upstream unavailable"]] as const).map(([s, d]) => [s, errorResponse(d)]),
            ),
          },
        },
      },
      "/v1/models": {
        get: {
          security: bearer,
          responses: {
            "200": { description: "Models usable by this account", headers: rateLimitHeaders, content: { "application/json": { schema: { $ref: "#/components/schemas/ModelList" } } } },
            "401": errorResponse("Invalid API key"),
            "429": errorResponse("Rate limited"),
          },
        },
      },
      "/v1/health/providers": { get: { security: [], responses: { "200": { description: "Provider health from live traffic" } } } },
      "/v1/openapi.json": { get: { security: [], responses: { "200": { description: "This document" } } } },
    },
  };
}
