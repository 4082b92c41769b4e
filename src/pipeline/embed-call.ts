/**
 * One endpoint's attempt at an embeddings request: the input cut into the adapter's batches,
 * at most a few upstream calls at a time, every answer read within the byte cap and checked
 * (one vector per input, the same width, the asked dimensions). Any batch failing fails the
 * attempt, and the router fails over with the whole request: vectors from two endpoints are
 * never mixed in one answer. Google's embeddings spoken natively (endpoints/gemini) batch the
 * same way through `inBatches` and `embedBatch`.
 */
import type { AdapterServices } from "./endpoint.js";
import type { RoutedEndpoint } from "../catalog/catalog.js";
import { GatewayError } from "../core/errors.js";
import { batchSize, type Inputs } from "./embed-input.js";
import { checkVectors, readVector, type Vector } from "./embed-vectors.js";
import type { CallContext, EmbeddingsAnswer, EmbeddingsCall, ProviderPlugin, UpstreamRequest } from "../plugin/contract.js";
import { InvalidAnswer } from "../plugin/failure.js";
import { readJson } from "../upstream/body.js";

/** Upstream calls in flight at once for one request. */
const CONCURRENCY = 8;

export interface Embedded {
  vectors: Vector[];
  /** Sum of the reported counts; undefined when any call reported none. */
  promptTokens: number | undefined;
}

export async function embedOn(
  gw: AdapterServices,
  e: RoutedEndpoint,
  inputs: Inputs,
  call: Omit<EmbeddingsCall, "input" | "encoding">,
  base64: boolean,
  signal: AbortSignal,
): Promise<Embedded> {
  const adapter = e.instance.plugin.embeddings!;
  // Ask for base64 only where the client wants it and the provider has it: fewer bytes on the wire.
  const encoding = base64 && adapter.features?.includes("base64") ? "base64" : "float";
  const ctx = callContext(e);
  return inBatches(inputs.length, batchSize(adapter, e.model, inputs.length), signal, async (from, to, linked) => {
    const batch: EmbeddingsCall = { ...call, input: inputs.slice(from, to) as Inputs, encoding };
    const answer = (json: unknown, headers: Record<string, string | string[] | undefined>) => adapter.response(json, ctx, headers);
    return embedBatch(gw, e.instance.plugin, await adapter.request(batch, ctx), linked, answer, (v) => checkVectors(v, to - from, call.dimensions));
  });
}

/** What an embeddings call of this endpoint is sent with. */
export const callContext = (e: RoutedEndpoint): CallContext => ({ settings: e.instance.settings, apiKey: e.apiKey, model: e.model, stream: false });

/**
 * `n` inputs in batches of `size`: `batch(from, to, signal)` for each, at most CONCURRENCY at once,
 * the answers joined in input order. The first failure stops the rest (none is left running).
 */
export async function inBatches(
  n: number,
  size: number,
  signal: AbortSignal,
  batch: (from: number, to: number, signal: AbortSignal) => Promise<Embedded>,
): Promise<Embedded> {
  const stop = new AbortController();
  const linked = AbortSignal.any([signal, stop.signal]);
  try {
    const parts = await inOrder(Math.ceil(n / size), CONCURRENCY, (i) => batch(i * size, Math.min(n, (i + 1) * size), linked));
    const vectors = parts.flatMap((p) => p.vectors);
    const counts = parts.map((p) => p.promptTokens);
    return { vectors, promptTokens: counts.every((c) => c !== undefined) ? counts.reduce((a, b) => a + b!, 0) : undefined };
  } finally {
    stop.abort(); // a failed batch leaves no sibling running
  }
}

/** One upstream call: its answer read within the cap, its vectors and count checked; a malformed one is that endpoint's failure. */
export async function embedBatch(
  gw: AdapterServices,
  plugin: ProviderPlugin,
  request: UpstreamRequest,
  signal: AbortSignal,
  answerOf: (json: unknown, headers: Record<string, string | string[] | undefined>) => EmbeddingsAnswer,
  check: (vectors: Vector[]) => void,
): Promise<Embedded> {
  const res = await gw.upstream.send(request, plugin, signal);
  const json = await readJson(res.body, gw.config.server.upstream.maxResponseBytes);
  try {
    const answer = answerOf(json, res.headers);
    const vectors = answer.vectors.map(readVector);
    check(vectors);
    return { vectors, promptTokens: answer.promptTokens === undefined ? undefined : tokenCount(answer.promptTokens) };
  } catch (err) {
    throw err instanceof GatewayError ? err : new InvalidAnswer(err);
  }
}

function tokenCount(n: unknown): number {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) throw new InvalidAnswer("upstream usage prompt_tokens is not a non-negative integer");
  return n;
}

/** Runs `task(0..n-1)` with at most `limit` at once; results in index order; stops taking work at the first failure. */
async function inOrder<T>(n: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < n) {
      const i = next++;
      try {
        out[i] = await task(i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, worker));
  return out;
}
