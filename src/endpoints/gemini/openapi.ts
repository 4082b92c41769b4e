/**
 * Google's generateContent routes in GET /v1/openapi.json (src/app/openapi.ts assembles it),
 * from the zod schemas that validate their requests (schema.ts). docs/gemini.md says the rest.
 */
import { z } from "zod";
import { answerHeaders, json, rateLimitHeaders, ref, type OpenApiPart } from "../../http/openapi-parts.js";
import { BatchEmbedContentsRequest, EmbedContentRequest } from "./embed-schema.js";
import { CountTokensRequest, GenerateContentRequest } from "./schema.js";

/** Google's envelope with the gateway's fields (errors.ts). */
const GoogleError = z.strictObject({
  error: z.strictObject({
    code: z.number().int().describe("The HTTP status"),
    message: z.string(),
    status: z.string().describe("Google's canonical name: INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND, RESOURCE_EXHAUSTED, UNAVAILABLE, ..."),
    type: z.string().describe("The gateway's error type (docs/http.md)"),
    reason: z.string().nullable().describe("The gateway's stable error code (docs/http.md `code`)"),
    request_id: z.string(),
    param: z.string().optional().describe("The request field at fault, when there is one"),
  }),
});

/** Any key header of docs/http.md: x-goog-api-key, ?key=, or Bearer. */
const keys = [{ googApiKey: [] }, { googQueryKey: [] }, { bearerAuth: [] }];
const model = {
  name: "model",
  in: "path",
  required: true,
  schema: { type: "string" },
  description: "A name from GET /v1beta/models, an alias, or a vendor/model id",
};

const errors = (list: Array<[string, string]>) =>
  Object.fromEntries(
    list.map(([s, description]) => [
      s,
      { description, headers: { "X-Request-Id": { schema: { type: "string" } } }, content: { "application/json": { schema: ref("GoogleError") } } },
    ]),
  );

const generateErrors = errors([
  ["400", "Invalid request, or (translated) a field the model cannot honour (reason unsupported_parameter)"],
  ["401", "Invalid API key"],
  ["402", "Insufficient credits"],
  ["404", "Model not found"],
  ["429", "Rate limited"],
  ["503", "Upstream unavailable"],
]);

function generate(stream: boolean) {
  return {
    post: {
      security: keys,
      parameters: [model],
      requestBody: { required: true, content: { "application/json": { schema: ref("GenerateContentRequest") } } },
      responses: {
        "200": stream
          ? {
              description: "`data:` events, each a GenerateContentResponse; the last carries finishReason and usageMetadata",
              headers: rateLimitHeaders,
              content: { "text/event-stream": { schema: { type: "object" } } },
            }
          : { description: "A GenerateContentResponse", headers: answerHeaders, content: { "application/json": { schema: { type: "object" } } } },
        ...generateErrors,
      },
    },
  };
}

function embed(schema: string, answer: string) {
  return {
    post: {
      security: keys,
      parameters: [model],
      requestBody: { required: true, content: { "application/json": { schema: ref(schema) } } },
      responses: {
        "200": { description: answer, headers: answerHeaders, content: { "application/json": { schema: { type: "object" } } } },
        ...errors([
          ["400", "Invalid request, a chat model (reason unsupported_model), or (translated) a field the model cannot honour"],
          ["401", "Invalid API key"],
          ["402", "Insufficient credits"],
          ["404", "Model not found"],
          ["429", "Rate limited"],
          ["503", "Upstream unavailable"],
        ]),
      },
    },
  };
}

const page = [
  { name: "pageSize", in: "query", required: false, schema: { type: "integer", minimum: 0 }, description: "Default 50, at most 1000" },
  { name: "pageToken", in: "query", required: false, schema: { type: "string" }, description: "The previous page's nextPageToken" },
];

export function geminiOpenApi(): OpenApiPart {
  return {
    schemas: {
      GenerateContentRequest: {
        ...json(GenerateContentRequest),
        description: "Google's GenerateContentRequest. Native to Google byte for byte; translated for other providers (docs/gemini.md).",
      },
      CountTokensRequest: json(CountTokensRequest),
      EmbedContentRequest: json(EmbedContentRequest),
      BatchEmbedContentsRequest: json(BatchEmbedContentsRequest),
      GoogleError: json(GoogleError),
    },
    paths: {
      "/v1beta/models/{model}:generateContent": generate(false),
      "/v1beta/models/{model}:streamGenerateContent": generate(true),
      "/v1beta/models/{model}:countTokens": {
        post: {
          security: keys,
          parameters: [model],
          requestBody: { required: true, content: { "application/json": { schema: ref("CountTokensRequest") } } },
          responses: {
            "200": { description: "`{totalTokens}`: Google's count natively, else the gateway's estimate; never billed", headers: rateLimitHeaders },
            ...errors([
              ["400", "Invalid request"],
              ["401", "Invalid API key"],
              ["404", "Model not found"],
              ["429", "Rate limited"],
            ]),
          },
        },
      },
      "/v1beta/models/{model}:embedContent": embed("EmbedContentRequest", "`{embedding: {values}}`"),
      "/v1beta/models/{model}:batchEmbedContents": embed("BatchEmbedContentsRequest", "`{embeddings: [{values}]}`, in request order"),
      "/v1beta/models": {
        get: {
          security: keys,
          parameters: page,
          responses: {
            "200": {
              description:
                '`{models: [{name: "models/<id>", displayName, description, inputTokenLimit, outputTokenLimit, supportedGenerationMethods, thinking?}], nextPageToken?}`; also GET /v1/models for a key sent as x-goog-api-key or ?key=',
              headers: rateLimitHeaders,
            },
            ...errors([
              ["400", "A pageSize or pageToken this list did not give out"],
              ["401", "Invalid API key"],
              ["429", "Rate limited"],
            ]),
          },
        },
      },
      "/v1beta/models/{model}": {
        get: {
          security: keys,
          parameters: [model],
          responses: {
            "200": { description: "One entry of the list", headers: rateLimitHeaders },
            ...errors([
              ["401", "Invalid API key"],
              ["404", "Model not found"],
            ]),
          },
        },
      },
    },
  };
}
