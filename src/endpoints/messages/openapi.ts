/**
 * The Messages API's part of GET /v1/openapi.json (src/app/openapi.ts assembles the document),
 * from the same zod schemas that validate the requests (schema.ts); the answer and the error
 * envelope are Anthropic's published shapes (docs/messages.md).
 */
import { answerHeaders, bearer, json, rateLimitHeaders, ref, withRouting, type OpenApiPart } from "../../http/openapi-parts.js";
import { CountTokensRequest, MessagesRequest } from "./schema.js";

const usage = {
  type: "object",
  required: ["input_tokens", "output_tokens"],
  properties: Object.fromEntries(
    ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"].map((k) => [k, { type: "integer" }]),
  ),
};

const message = {
  type: "object",
  required: ["id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"],
  properties: {
    id: { type: "string", description: "The gateway's id (msg_...), also on a native answer." },
    type: { const: "message" },
    role: { const: "assistant" },
    model: { type: "string" },
    content: { type: "array", items: { type: "object", required: ["type"], properties: { type: { type: "string" } } } },
    stop_reason: { enum: ["end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "pause_turn", null] },
    stop_sequence: { type: ["string", "null"] },
    usage,
  },
  description:
    "Anthropic's message. Native (Anthropic, Claude on Bedrock): the provider's answer unchanged but for `id` and `usage` (the gateway's record). With stream=true: text/event-stream of Anthropic's events, each with its `event:` line.",
};

const anthropicError = {
  type: "object",
  required: ["type", "error"],
  properties: {
    type: { const: "error" },
    error: {
      type: "object",
      required: ["message", "type", "code", "request_id"],
      properties: {
        message: { type: "string" },
        type: { type: "string" },
        code: { type: ["string", "null"] },
        param: { type: ["string", "null"] },
        request_id: { type: "string" },
      },
    },
  },
  description: "The gateway's error object in Anthropic's envelope.",
};

const errors = (list: Array<[string, string]>) =>
  Object.fromEntries(
    list.map(([status, description]) => [
      status,
      { description, headers: { "X-Request-Id": { schema: { type: "string" } } }, content: { "application/json": { schema: ref("AnthropicError") } } },
    ]),
  );

const auth =
  "The key as `x-api-key` (Anthropic's clients) or `Authorization: Bearer`. `anthropic-version` and `anthropic-beta` are forwarded on native routes.";

export function messagesOpenApi(): OpenApiPart {
  return {
    schemas: {
      MessagesRequest: {
        ...withRouting(json(MessagesRequest)),
        description:
          "Anthropic's Messages request. Fields beyond these are kept for native routes; translated, each is dropped (hints) or a 400 (docs/messages.md).",
      },
      CountTokensRequest: json(CountTokensRequest),
      Message: message,
      AnthropicError: anthropicError,
    },
    paths: {
      "/v1/messages": {
        post: {
          security: bearer,
          description: auth,
          requestBody: { required: true, content: { "application/json": { schema: ref("MessagesRequest") } } },
          responses: {
            "200": {
              description: "A message (JSON), or with stream=true its event stream.",
              headers: answerHeaders,
              content: { "application/json": { schema: ref("Message") }, "text/event-stream": { schema: { type: "object" } } },
            },
            ...errors([
              ["400", "Invalid request, or a field the translated route cannot honour (code unsupported_parameter)"],
              ["401", "Invalid API key"],
              ["402", "Insufficient credits"],
              ["404", "Model not found"],
              ["413", "Request too large"],
              ["429", "Rate limited"],
              ["503", "Upstream unavailable"],
            ]),
          },
        },
      },
      "/v1/messages/count_tokens": {
        post: {
          security: bearer,
          description: `${auth} Never billed; counted by the rate limits.`,
          requestBody: { required: true, content: { "application/json": { schema: ref("CountTokensRequest") } } },
          responses: {
            "200": {
              description: "The provider's count (Anthropic), else the gateway's estimate.",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: { type: "object", required: ["input_tokens"], properties: { input_tokens: { type: "integer" } } } } },
            },
            ...errors([
              ["400", "Invalid request"],
              ["401", "Invalid API key"],
              ["404", "Model not found"],
              ["429", "Rate limited"],
            ]),
          },
        },
      },
    },
  };
}
