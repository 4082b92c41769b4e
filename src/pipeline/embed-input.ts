/**
 * An embeddings request's input, before any hold: one list (texts or token-id arrays), an
 * upper bound on its tokens for the hold, a count for providers that report none, and the
 * route narrowed to the endpoints that can serve every field (docs/embeddings.md).
 */
import type { Route } from "../catalog/catalog.js";
import { GatewayError } from "../core/errors.js";
import { unsupported, type EmbeddingsCall } from "../plugin/contract.js";
import { countTextTokens } from "../billing/tokens.js";

/** OpenAI's limit: an input array holds 1 to 2048 items (Google's batchEmbedContents takes as many requests here). */
export const MAX_EMBEDDING_INPUTS = 2048;

/** Upstream calls one request may fan out to (Bedrock Titan embeds one text per call). */
const MAX_UPSTREAM_CALLS = 256;
/** Special tokens a model may add around each input (BOS/EOS, a task prefix), generously. */
const PER_INPUT_OVERHEAD = 16;

export type Inputs = string[] | number[][];

const isTokens = (inputs: Inputs): inputs is number[][] => Array.isArray(inputs[0]);

/** Tokens the input cannot exceed: a BPE token is at least one byte, a token id is one token. */
export function inputTokenBound(inputs: Inputs): number {
  let n = 0;
  for (const x of inputs) n += (typeof x === "string" ? Buffer.byteLength(x) : x.length) + PER_INPUT_OVERHEAD;
  return n;
}

/** For a provider that reports no usage (Gemini): o200k counts, billed and marked `estimated`. */
export async function estimateTokens(inputs: Inputs): Promise<number> {
  if (isTokens(inputs)) return inputs.reduce((n, ids) => n + ids.length, 0);
  let n = 0;
  for (const text of inputs) n += await countTextTokens(text);
  return n;
}

/** The route narrowed to endpoints whose adapter takes every field; else the first refusal (400). */
export function narrowEmbeddings(route: Route, inputs: Inputs, call: Omit<EmbeddingsCall, "input">): Route {
  let refusal: GatewayError | undefined;
  const endpoints = route.endpoints.filter((e) => {
    try {
      refuseUnsupported(e.instance.plugin.name, e.instance.plugin.embeddings, e.model, inputs, call);
      return true;
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      refusal ??= err;
      return false;
    }
  });
  if (endpoints.length === 0) throw refusal!;
  return endpoints.length === route.endpoints.length ? route : { ...route, endpoints };
}

type Adapter = Route["endpoints"][number]["instance"]["plugin"]["embeddings"];

/** Inputs per upstream call for this model: the adapter's limit, else all at once. */
export function batchSize(adapter: NonNullable<Adapter>, model: string, inputs: number): number {
  const max = typeof adapter.maxBatch === "function" ? adapter.maxBatch(model) : adapter.maxBatch;
  return Math.max(1, Math.min(max ?? inputs, inputs));
}

function refuseUnsupported(provider: string, adapter: Adapter, model: string, inputs: Inputs, call: Omit<EmbeddingsCall, "input">): void {
  if (!adapter) throw unsupported("model", `the provider ${provider} has no embeddings API.`);
  const has = (f: "dimensions" | "tokens") => adapter.features?.includes(f) === true;
  if (isTokens(inputs) && !has("tokens")) throw unsupported("input", `token-id input is not supported by ${provider}; send text.`);
  if (call.dimensions !== undefined && !has("dimensions")) throw unsupported("dimensions", `${provider} cannot set the number of dimensions of '${model}'.`);
  const perCall = batchSize(adapter, model, inputs.length);
  if (Math.ceil(inputs.length / perCall) > MAX_UPSTREAM_CALLS) {
    throw unsupported(
      "input",
      `${provider} embeds ${perCall} input(s) per call for '${model}'; send at most ${MAX_UPSTREAM_CALLS * perCall} inputs per request.`,
    );
  }
  adapter.check?.(call, model);
}
