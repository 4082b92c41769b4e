/**
 * Gemini embeddings (https://ai.google.dev/api/embeddings#method:-models.batchembedcontents):
 * POST models/{model}:batchEmbedContents with one EmbedContentRequest per text
 * (`model`, `content.parts[].text`, `outputDimensionality`), answered by `embeddings[].values`
 * in request order. The API reports no token usage: the core bills an estimate, marked so.
 * At most 100 requests per batch (the API refuses more; vercel/ai's google fixture
 * issue-16101-google-batch-embed-150-error.json). No task type: OpenAI's request has none.
 */
import { readAnswer, type EmbeddingsAdapter } from "../../src/plugin/contract.js";
import { embeddingsSchema } from "./answer-schema.js";
import { headers, resource, resourceName, root } from "./url.js";

export const googleEmbeddings: EmbeddingsAdapter = {
  features: ["dimensions"],
  maxBatch: 100,
  request(call, ctx) {
    const model = resourceName(ctx.model);
    const requests = (call.input as string[]).map((text) => ({
      model,
      content: { parts: [{ text }] },
      ...(call.dimensions !== undefined ? { outputDimensionality: call.dimensions } : {}),
    }));
    return {
      url: `${root(ctx.settings)}/${resource(ctx.model)}:batchEmbedContents`,
      headers: { "content-type": "application/json", ...headers(ctx.apiKey) },
      body: JSON.stringify({ requests }),
    };
  },
  response(json) {
    const { embeddings } = readAnswer(embeddingsSchema, json, "google batchEmbedContents");
    return { vectors: embeddings.map((e) => e.values as number[]) };
  },
};
