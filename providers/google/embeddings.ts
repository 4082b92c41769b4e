/**
 * Gemini embeddings (https://ai.google.dev/api/embeddings#method:-models.batchembedcontents):
 * POST models/{model}:batchEmbedContents with one EmbedContentRequest per text
 * (`model`, `content.parts[].text`, `outputDimensionality`), answered by `embeddings[].values`
 * in request order. The API reports no token usage: the core bills an estimate, marked so.
 * At most 100 requests per batch (the API refuses more; vercel/ai's google fixture
 * issue-16101-google-batch-embed-150-error.json). No task type: OpenAI's request has none.
 * Natively (`nativeEmbed`, docs/gemini.md "Embeddings"), a Gemini client's own requests go as
 * they came, task type and title included, each `model` set to the upstream model's.
 */
import { readAnswer, type EmbeddingsAdapter, type EmbeddingsAnswer, type NativeGeminiEmbed, type CallContext } from "../../src/plugin/contract.js";
import { embeddingsSchema } from "./answer-schema.js";
import { headers, resource, resourceName, root } from "./url.js";

const MAX_BATCH = 100;

function batchRequest(requests: readonly Record<string, unknown>[], ctx: CallContext) {
  return {
    url: `${root(ctx.settings)}/${resource(ctx.model)}:batchEmbedContents`,
    headers: { "content-type": "application/json", ...headers(ctx.apiKey) },
    body: JSON.stringify({ requests }),
  };
}

function vectorsOf(json: unknown): EmbeddingsAnswer {
  const { embeddings } = readAnswer(embeddingsSchema, json, "google batchEmbedContents");
  return { vectors: embeddings.map((e) => e.values as number[]) };
}

export const googleEmbeddings: EmbeddingsAdapter = {
  features: ["dimensions"],
  maxBatch: MAX_BATCH,
  request(call, ctx) {
    const model = resourceName(ctx.model);
    const requests = (call.input as string[]).map((text) => ({
      model,
      content: { parts: [{ text }] },
      ...(call.dimensions !== undefined ? { outputDimensionality: call.dimensions } : {}),
    }));
    return batchRequest(requests, ctx);
  },
  response: vectorsOf,
};

export const nativeEmbed: NativeGeminiEmbed = {
  maxBatch: MAX_BATCH,
  request(requests, ctx) {
    const model = resourceName(ctx.model);
    return batchRequest(
      requests.map((r) => ({ ...r, model })),
      ctx,
    );
  },
  response: vectorsOf,
};
