/**
 * Mistral embeddings (https://docs.mistral.ai/api/endpoint/embeddings): POST /v1/embeddings with
 * `model` and `input` (a string or strings, no token ids); the width is `output_dimension`,
 * which only codestral-embed takes (mistral-embed is fixed at 1024); the answer is OpenAI's
 * CreateEmbeddingResponse with `usage.prompt_tokens`. No `user` field. Vercel's AI SDK sends
 * at most 32 inputs per call (packages/mistral mistral-embedding-model.ts): so does this.
 */
import { unsupported } from "../../src/plugin/contract.js";
import type { OpenAIEmbeddingsOptions } from "../openai-compatible/embeddings.js";

export const mistralEmbeddings: OpenAIEmbeddingsOptions = {
  features: ["dimensions"],
  maxBatch: 32,
  check(call, model) {
    if (call.dimensions !== undefined && !model.startsWith("codestral-embed")) {
      throw unsupported("dimensions", `'${model}' has a fixed width; only codestral-embed takes output_dimension.`);
    }
  },
  transformRequest({ dimensions, ...body }) {
    return dimensions === undefined ? body : { ...body, output_dimension: dimensions };
  },
};
