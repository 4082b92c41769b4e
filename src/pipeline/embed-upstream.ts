/**
 * The stages every endpoint that embeds shares (POST /v1/embeddings, Google's embedContent and
 * batchEmbedContents): embedding models only, narrowed to endpoints whose adapter takes every
 * field; the hold of the input's token bound at the prompt price; the adapter's batched calls;
 * usage as reported (bounded by the input) or counted here. Such an endpoint adds its parse and
 * render stages (endpoints/embeddings/route.ts, endpoints/gemini/embed.ts). docs/embeddings.md.
 */
import { holdWorstCase } from "../billing/bill.js";
import { pricesOf } from "../billing/prices.js";
import { requireEmbeddingModel } from "../catalog/model-kind.js";
import type { Usage } from "../core/chat-request.js";
import type { EmbeddingsCall } from "../plugin/contract.js";
import { costOf } from "../core/money.js";
import { embedOn, type Embedded } from "./embed-call.js";
import { estimateTokens, narrowEmbeddings, type Inputs } from "./embed-input.js";
import type { Endpoint } from "./endpoint.js";

/** An embeddings request as the pipeline carries it: the input as one list and what the upstream calls take. */
export interface Embedding {
  model: string;
  inputs: Inputs;
  /** Tokens the input cannot exceed: the hold, and a cap on the reported count. */
  bound: number;
  call: Omit<EmbeddingsCall, "input" | "encoding">;
  base64: boolean;
}

type EmbedStages = Pick<Endpoint<Embedding, Embedded>, "route" | "hold" | "adapter" | "usage" | "estimate">;

export const usageOf = (prompt: number): Usage => ({ prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt });

export const EMBED_UPSTREAM: EmbedStages = {
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
};
