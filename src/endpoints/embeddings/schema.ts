/**
 * POST /v1/embeddings on the wire (contract.md §12, OpenAI's CreateEmbeddingRequest and
 * CreateEmbeddingResponse in openai/openai-openapi): the zod schemas that validate requests,
 * and the part of /v1/openapi.json generated from them (src/app/openapi.ts merges it in).
 */
import { z } from "zod";

/** OpenAI's limit: an input array holds 1 to 2048 items. */
export const MAX_EMBEDDING_INPUTS = 2048;

const TokenIds = z.array(z.number().int().min(0)).min(1);

const requestShape = {
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1).max(MAX_EMBEDDING_INPUTS), TokenIds, z.array(TokenIds).min(1).max(MAX_EMBEDDING_INPUTS)]),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.number().int().min(1).optional(),
  user: z.string().optional(),
};

export const EmbeddingsRequest = z.strictObject(requestShape);
/** `server.compat: passthrough`: unknown top-level fields are accepted and dropped (contract.md §4). */
export const LooseEmbeddingsRequest = z.object(requestShape);
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequest>;

export const EmbeddingsResponse = z.object({
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

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any", io: "input" });

const errorRef = (description: string) => ({
  description,
  content: { "application/json": { schema: { oneOf: [{ $ref: "#/components/schemas/Error" }, { $ref: "#/components/schemas/OpenAIError" }] } } },
});

/** Schemas and the path for /v1/openapi.json. */
export function embeddingsOpenApi() {
  const limitHeaders = Object.fromEntries(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"].map((h) => [h, { schema: { type: "integer" } }]));
  return {
    schemas: {
      EmbeddingsRequest: {
        ...json(EmbeddingsRequest),
        description: "Unknown fields are a 400 (under `server.compat: passthrough` they are dropped). A chat model here is 400 `unsupported_model`.",
      },
      EmbeddingsResponse: json(EmbeddingsResponse),
    },
    paths: {
      "/v1/embeddings": {
        post: {
          security: [{ bearerAuth: [] }],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/EmbeddingsRequest" } } } },
          responses: {
            "200": {
              description: "One vector per input, `index` in input order",
              headers: limitHeaders,
              content: { "application/json": { schema: { $ref: "#/components/schemas/EmbeddingsResponse" } } },
            },
            ...Object.fromEntries(
              (
                [
                  ["400", "Invalid request, unsupported_model or unsupported_parameter"],
                  ["401", "Invalid API key"],
                  ["402", "Insufficient credits"],
                  ["404", "Model not found"],
                  ["413", "Request too large"],
                  ["429", "Rate limited"],
                  ["502", "No usable upstream answer"],
                  ["503", "Upstream unavailable"],
                ] as const
              ).map(([s, d]) => [s, errorRef(d)]),
            ),
          },
        },
      },
    },
  };
}
