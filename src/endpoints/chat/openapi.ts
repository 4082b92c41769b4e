/** POST /v1/chat/completions in GET /v1/openapi.json: the request in both dialects, the completion and its chunk. */
import { OpenAIChatRequest, StrictChatRequest } from "../../core/chat-request.js";
import {
  answerHeaders,
  describe,
  either,
  errorResponses,
  json,
  withRouting,
  bearer,
  cacheHeaders,
  cacheControlParameter,
  type OpenApiPart,
} from "../../http/openapi-parts.js";
import { ChatChunk, ChatCompletion, OpenAIChatChunk, OpenAIChatCompletion } from "./schema.js";

export function chatOpenApi(): OpenApiPart {
  return {
    schemas: {
      ChatCompletionRequest: describe(withRouting(json(StrictChatRequest)), "The request as specified (`server.compat: strict`, the default)."),
      OpenAIChatCompletionRequest: describe(
        withRouting(json(OpenAIChatRequest)),
        "The OpenAI request superset (`server.compat: openai`; `passthrough` also drops unknown top-level fields). An explicit null for an optional field means absent.",
      ),
      ChatCompletionResponse: json(ChatCompletion),
      OpenAIChatCompletionResponse: json(OpenAIChatCompletion),
      ChatCompletionChunk: json(ChatChunk),
      OpenAIChatCompletionChunk: json(OpenAIChatChunk),
    },
    paths: {
      "/v1/chat/completions": {
        post: {
          security: bearer,
          parameters: [cacheControlParameter],
          requestBody: { required: true, content: { "application/json": { schema: either("ChatCompletionRequest", "OpenAIChatCompletionRequest") } } },
          responses: {
            "200": {
              description: "A completion (JSON), or with stream=true a text/event-stream of `data: <ChatCompletionChunk>` lines ending with `data: [DONE]`.",
              headers: { ...answerHeaders, ...cacheHeaders },
              content: {
                "application/json": { schema: either("ChatCompletionResponse", "OpenAIChatCompletionResponse") },
                "text/event-stream": { schema: either("ChatCompletionChunk", "OpenAIChatCompletionChunk") },
              },
            },
            ...errorResponses([
              ["400", "Invalid request"],
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
    },
  };
}
