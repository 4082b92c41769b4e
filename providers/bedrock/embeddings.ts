/**
 * Bedrock embeddings through InvokeModel (POST /model/{modelId}/invoke, SigV4; the runtime API
 * reference API_runtime_InvokeModel.html), whose body is the model's own format:
 * - Amazon Titan Text Embeddings (model-parameters-titan-embed-text.html): one text per call,
 *   `{inputText, dimensions?}` (v2 only: 256, 512 or 1024) -> `{embedding, inputTextTokenCount}`;
 * - Cohere Embed (model-parameters-embed-v3.html, -embed-v4.html): up to 96 `texts` with the
 *   required `input_type` (`search_document`: OpenAI's request does not say query or
 *   document, and documents are what pipelines embed in bulk) and, v4 only, `output_dimension`
 *   (256, 512, 1024, 1536) -> `embeddings` (a list, or `{float: [...]}` by type); the token
 *   count is the `x-amzn-bedrock-input-token-count` response header.
 * Other Bedrock embedding models (Nova, TwelveLabs) are refused as unsupported_model.
 */
import { type CallContext, type EmbeddingsAdapter, type EmbeddingsAnswer, invalidRequest, readAnswer, unsupported } from "../../src/plugin/contract.js";
import { cohereEmbeddingsSchema, titanEmbeddingSchema } from "./answer-schema.js";
import { credentialsOf, regionOf } from "./credentials.js";
import { signRequest } from "./sign.js";

const TITAN = /(^|\.)amazon\.titan-embed-text/;
const TITAN_V2 = /(^|\.)amazon\.titan-embed-text-v2/;
const COHERE = /(^|\.)cohere\.embed/;
const COHERE_V4 = /(^|\.)cohere\.embed-v4/;

const TITAN_DIMENSIONS = [256, 512, 1024];
const COHERE_DIMENSIONS = [256, 512, 1024, 1536];

function check(call: { dimensions?: number }, model: string): void {
  const dims = call.dimensions;
  if (TITAN.test(model)) {
    if (dims === undefined) return;
    if (!TITAN_V2.test(model)) throw unsupported("dimensions", `'${model}' has a fixed width; Titan Text Embeddings v2 takes 256, 512 or 1024.`);
    if (!TITAN_DIMENSIONS.includes(dims)) throw unsupported("dimensions", "Titan Text Embeddings v2 takes 256, 512 or 1024.");
    return;
  }
  if (COHERE.test(model)) {
    if (dims === undefined) return;
    if (!COHERE_V4.test(model)) throw unsupported("dimensions", `'${model}' has a fixed width; Cohere Embed v4 takes 256, 512, 1024 or 1536.`);
    if (!COHERE_DIMENSIONS.includes(dims)) throw unsupported("dimensions", "Cohere Embed v4 takes 256, 512, 1024 or 1536.");
    return;
  }
  throw invalidRequest(
    `model: the Bedrock model '${model}' is not an embedding model the gateway translates (Titan Text, Cohere Embed).`,
    "unsupported_model",
    "model",
  );
}

function bodyFor(texts: string[], dims: number | undefined, model: string): Record<string, unknown> {
  if (TITAN.test(model)) return { inputText: texts[0], ...(dims !== undefined ? { dimensions: dims } : {}) };
  return { texts, input_type: "search_document", ...(dims !== undefined ? { output_dimension: dims } : {}) };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): number | undefined {
  const v = headers[name];
  const text = Array.isArray(v) ? v[0] : v;
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

function fromInvoke(json: unknown, model: string, headers: Record<string, string | string[] | undefined>): EmbeddingsAnswer {
  const counted = header(headers, "x-amzn-bedrock-input-token-count");
  if (TITAN.test(model)) {
    const body = readAnswer(titanEmbeddingSchema, json, "bedrock titan embedding");
    const tokens = body.inputTextTokenCount ?? counted;
    return { vectors: [body.embedding as number[]], ...(tokens !== undefined ? { promptTokens: tokens } : {}) };
  }
  const { embeddings } = readAnswer(cohereEmbeddingsSchema, json, "bedrock cohere embeddings");
  const list = Array.isArray(embeddings) ? embeddings : embeddings.float;
  return { vectors: list as number[][], ...(counted !== undefined ? { promptTokens: counted } : {}) };
}

export const bedrockEmbeddings: EmbeddingsAdapter = {
  features: ["dimensions"],
  maxBatch: (model) => (TITAN.test(model) ? 1 : 96),
  check,
  request(call, ctx: CallContext) {
    const base = ctx.settings.baseUrl.replace(/\/+$/, "");
    return signRequest({
      url: `${base}/model/${encodeURIComponent(ctx.model)}/invoke`,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(bodyFor(call.input as string[], call.dimensions, ctx.model)),
      region: regionOf(ctx.settings),
      service: "bedrock",
      credentials: credentialsOf(ctx.apiKey),
    });
  },
  response: (json, ctx, headers) => fromInvoke(json, ctx.model, headers),
};
