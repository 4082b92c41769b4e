/**
 * POST /embeddings in the OpenAI wire format (openai/openai-openapi CreateEmbeddingRequest /
 * CreateEmbeddingResponse), shared by OpenAI, Azure and the OpenAI-format presets that have
 * an embeddings API. A preset says what of the request its API takes (`features`), how many
 * inputs one call may hold, and renames fields where its API differs (Mistral).
 */
import {
  invalidAnswer,
  readAnswer,
  type CallContext,
  type EmbeddingFeature,
  type EmbeddingsAdapter,
  type EmbeddingsAnswer,
  type EmbeddingsCall,
  type UpstreamRequest,
} from "../../src/plugin/contract.js";
import { embeddingsSchema } from "./answer-schema.js";

export interface OpenAIEmbeddingsOptions {
  /** Default: OpenAI's own (dimensions, base64, token-id input). */
  features?: readonly EmbeddingFeature[];
  maxBatch?: number;
  /** Send `user` (OpenAI's abuse-monitoring id); off where the API does not document it. */
  user?: boolean;
  /** Model-specific refusals, before any hold. */
  check?: EmbeddingsAdapter["check"];
  /** Adjust the outgoing body (Mistral's `output_dimension`). */
  transformRequest?(body: Record<string, unknown>, ctx: CallContext): Record<string, unknown>;
  /** Default `<baseUrl>/embeddings`. */
  url?(ctx: CallContext): string;
}

export const OPENAI_EMBEDDING_FEATURES: readonly EmbeddingFeature[] = ["dimensions", "base64", "tokens"];

export function openaiEmbeddings(provider: string, options: OpenAIEmbeddingsOptions, headers: (ctx: CallContext) => Record<string, string>): EmbeddingsAdapter {
  return {
    features: options.features ?? OPENAI_EMBEDDING_FEATURES,
    ...(options.maxBatch !== undefined ? { maxBatch: options.maxBatch } : {}),
    ...(options.check ? { check: options.check } : {}),
    request(call: EmbeddingsCall, ctx: CallContext): UpstreamRequest {
      let body: Record<string, unknown> = { model: ctx.model, input: call.input };
      if (call.dimensions !== undefined) body.dimensions = call.dimensions;
      // Float is every API's default: the field is sent only to ask for base64.
      if (call.encoding === "base64") body.encoding_format = "base64";
      if (options.user && call.user !== undefined) body.user = call.user;
      if (options.transformRequest) body = options.transformRequest(body, ctx);
      return {
        url: options.url?.(ctx) ?? `${ctx.settings.baseUrl.replace(/\/+$/, "")}/embeddings`,
        headers: { "content-type": "application/json", ...headers(ctx) },
        body: JSON.stringify(body),
      };
    },
    response: (json) => fromEmbeddingResponse(json, provider),
  };
}

/** CreateEmbeddingResponse -> vectors in input order (by `index`), usage where sent. */
function fromEmbeddingResponse(json: unknown, provider: string): EmbeddingsAnswer {
  const { data, usage } = readAnswer(embeddingsSchema, json, `${provider} embeddings`);
  const vectors = new Array<number[] | string>(data.length);
  for (const item of data) {
    const i = item.index;
    if (i >= data.length || vectors[i] !== undefined) throw invalidAnswer(`${provider} embeddings: indexes are not 0..n-1`);
    vectors[i] = item.embedding as number[] | string;
  }
  const tokens = usage?.prompt_tokens;
  return { vectors, ...(tokens !== undefined ? { promptTokens: tokens } : {}) };
}
