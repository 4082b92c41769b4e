/**
 * POST /v1/embeddings (docs/embeddings.md) through the one request pipeline (pipeline/run.ts):
 * this file is its Endpoint. Parse reads the input as one list with an upper bound on its
 * tokens; route takes embedding models only, narrowed to endpoints that take every field;
 * hold is that bound × the prompt price; the adapter embeds in batches (call.ts); usage is
 * the reported count or an estimate, marked so; render is OpenAI's list of vectors.
 */
import { holdWorstCase } from "../../billing/bill.js";
import { pricesOf } from "../../billing/prices.js";
import { requireEmbeddingModel } from "../../catalog/model-kind.js";
import type { Usage } from "../../core/chat-request.js";
import { invalidRequest, modelNotFound } from "../../core/errors.js";
import { costOf } from "../../core/money.js";
import { dropNullFields, isObject } from "../../core/null-fields.js";
import { validate } from "../../core/validate.js";
import type { Gateway } from "../../gateway.js";
import { parseJsonBody } from "../../http/body.js";
import type { Endpoint } from "../../pipeline/endpoint.js";
import { definesStages } from "../../pipeline/stages.js";
import type { EmbeddingsCall } from "../../plugin/contract.js";
import { embedOn, type Embedded } from "./call.js";
import { estimateTokens, inputsOf, inputTokenBound, narrowEmbeddings, type Inputs } from "./input.js";
import { EmbeddingsRequest, LooseEmbeddingsRequest, MAX_EMBEDDING_INPUTS } from "./schema.js";
import { render } from "./vectors.js";

/** The request as the pipeline carries it: the input as one list and what the upstream calls take. */
interface Embedding {
  model: string;
  inputs: Inputs;
  /** Tokens the input cannot exceed: the hold, and a cap on the reported count. */
  bound: number;
  call: Omit<EmbeddingsCall, "input" | "encoding">;
  base64: boolean;
}

const usageOf = (prompt: number): Usage => ({ prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt });

export const EMBEDDINGS: Endpoint<Embedding, Embedded> = definesStages("embeddings", {
  name: "embeddings",
  path: "/v1/embeddings",
  parse(gw, raw) {
    const body = readRequest(gw, raw);
    const inputs = inputsOf(body.input);
    const base64 = body.encoding_format === "base64";
    return { model: body.model, inputs, bound: inputTokenBound(inputs), call: { dimensions: body.dimensions, user: body.user }, base64 };
  },
  missing: (_gw, requested) => modelNotFound(requested),
  route(found, req) {
    requireEmbeddingModel(found.model);
    return narrowEmbeddings(found, req.inputs, { ...req.call, encoding: req.base64 ? "base64" : "float" });
  },
  hold: (gw, key, route, req, requestId) => holdWorstCase(gw.store, key, route, () => costOf(pricesOf(route), req.bound, 0), requestId, gw.now()),
  adapter: (gw, job, e, signal) => embedOn(gw, e, job.body.inputs, job.body.call, job.body.base64, signal),
  // The reported count, bounded by what the input can hold (a provider's bug cannot bill more);
  // a provider that reports none (Gemini) is billed on an o200k count, marked `estimated`.
  usage: (job, value) => (value.promptTokens === undefined ? undefined : usageOf(Math.min(value.promptTokens, job.body.bound))),
  estimate: async (job) => usageOf(await estimateTokens(job.body.inputs)),
  render(_gw, ex, job, value, usage) {
    ex.json(
      200,
      JSON.stringify({
        object: "list",
        data: value.vectors.map((v, index) => ({ object: "embedding", index, embedding: render(v, job.body.base64 ? "base64" : "float") })),
        model: job.route.model.id,
        usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens },
      }),
    );
  },
});

function readRequest(gw: Gateway, raw: Buffer): EmbeddingsRequest {
  const json = parseJsonBody(raw);
  const compat = gw.config.server.compat;
  // Under `openai` an explicit null means absent (docs/openai-compat.md), as on chat.
  if (compat !== "strict" && isObject(json)) dropNullFields(json);
  // Past 2048 a list matches none of the union's forms, and zod would say only that: name the bound.
  const input = isObject(json) ? json.input : undefined;
  if (Array.isArray(input) && input.length > MAX_EMBEDDING_INPUTS && typeof input[0] !== "number") {
    throw invalidRequest(`input: at most ${MAX_EMBEDDING_INPUTS} items`, null, "input");
  }
  return validate(compat === "passthrough" ? LooseEmbeddingsRequest : EmbeddingsRequest, json) as EmbeddingsRequest;
}
