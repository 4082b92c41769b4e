/**
 * POST /v1/embeddings on the wire (docs/embeddings.md, OpenAI's CreateEmbeddingRequest and
 * CreateEmbeddingResponse in openai/openai-openapi): the zod schemas that validate requests,
 * and the part of /v1/openapi.json generated from them (src/app/openapi.ts merges it in).
 */
import { z } from "zod";
import { MAX_EMBEDDING_INPUTS } from "../../pipeline/embed-input.js";
import { answerHeaders, bearer, describe, errorResponses, json, okJson, ref, type OpenApiPart } from "../../http/openapi-parts.js";

const TokenIds = z.array(z.number().int().min(0)).min(1);

const requestShape = {
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1).max(MAX_EMBEDDING_INPUTS), TokenIds, z.array(TokenIds).min(1).max(MAX_EMBEDDING_INPUTS)]),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.number().int().min(1).optional(),
  user: z.string().optional(),
};

export const EmbeddingsRequest = z.strictObject(requestShape);
/** `server.compat: passthrough`: unknown top-level fields are accepted and dropped (docs/http.md). */
export const LooseEmbeddingsRequest = z.object(requestShape);
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequest>;

const EmbeddingsResponse = z.object({
  object: z.literal("list"),
  data: z.array(
    z.object({
      object: z.literal("embedding"),
      index: z.number().int(),
      /** Numbers, or with `encoding_format: base64` the little-endian float32 bytes in base64. */
      embedding: z.union([z.array(z.number()), z.string()]),
    }),
  ),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});

/** Schemas and the path for /v1/openapi.json. */
export function embeddingsOpenApi(): OpenApiPart {
  return {
    schemas: {
      EmbeddingsRequest: describe(
        json(EmbeddingsRequest),
        "Unknown fields are a 400 (under `server.compat: passthrough` they are dropped). A chat model here is 400 `unsupported_model`.",
      ),
      EmbeddingsResponse: json(EmbeddingsResponse),
    },
    paths: {
      "/v1/embeddings": {
        post: {
          security: bearer,
          requestBody: { required: true, content: { "application/json": { schema: ref("EmbeddingsRequest") } } },
          responses: {
            "200": { ...okJson("One vector per input, `index` in input order", "EmbeddingsResponse"), headers: answerHeaders },
            ...errorResponses([
              ["400", "Invalid request, unsupported_model or unsupported_parameter"],
              ["401", "Invalid API key"],
              ["402", "Insufficient credits"],
              ["404", "Model not found"],
              ["413", "Request too large"],
              ["429", "Rate limited"],
              ["502", "No usable upstream answer"],
              ["503", "Upstream unavailable"],
            ]),
          },
        },
      },
    },
  };
}
