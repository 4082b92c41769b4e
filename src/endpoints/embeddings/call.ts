/**
 * One endpoint's attempt at an embeddings request: the input cut into the adapter's batches,
 * at most a few upstream calls at a time, every answer read within the byte cap and checked
 * (one vector per input, the same width, the asked dimensions). Any batch failing fails the
 * attempt, and the router fails over with the whole request: vectors from two endpoints are
 * never mixed in one answer.
 */
import type { RoutedEndpoint } from "../../catalog/catalog.js";
import { GatewayError } from "../../core/errors.js";
import type { Gateway } from "../../gateway.js";
import { batchSize, type Inputs } from "./input.js";
import { checkVectors, readVector, type Vector } from "./vectors.js";
import type { CallContext, EmbeddingsCall } from "../../plugin/contract.js";
import { InvalidAnswer } from "../../plugin/failure.js";
import { readJson } from "../../upstream/body.js";

/** Upstream calls in flight at once for one request. */
const CONCURRENCY = 8;

export interface Embedded {
  vectors: Vector[];
  /** Sum of the reported counts; undefined when any call reported none. */
  promptTokens: number | undefined;
}

export async function embedOn(
  gw: Gateway,
  e: RoutedEndpoint,
  inputs: Inputs,
  call: Omit<EmbeddingsCall, "input" | "encoding">,
  base64: boolean,
  signal: AbortSignal,
): Promise<Embedded> {
  const adapter = e.instance.plugin.embeddings!;
  const size = batchSize(adapter, e.model, inputs.length);
  const batches: Inputs[] = [];
  for (let i = 0; i < inputs.length; i += size) batches.push(inputs.slice(i, i + size) as Inputs);
  // Ask for base64 only where the client wants it and the provider has it: fewer bytes on the wire.
  const encoding = base64 && adapter.features?.includes("base64") ? "base64" : "float";
  const ctx: CallContext = { settings: e.instance.settings, apiKey: e.apiKey, model: e.model, stream: false };
  const stop = new AbortController();
  const linked = AbortSignal.any([signal, stop.signal]);
  try {
    const parts = await inOrder(batches.length, CONCURRENCY, (i) => embedBatch(gw, e, ctx, { ...call, input: batches[i]!, encoding }, linked));
    const vectors = parts.flatMap((p) => p.vectors);
    const counts = parts.map((p) => p.promptTokens);
    return { vectors, promptTokens: counts.every((c) => c !== undefined) ? counts.reduce((a, b) => a + b!, 0) : undefined };
  } finally {
    stop.abort(); // a failed batch leaves no sibling running
  }
}

async function embedBatch(gw: Gateway, e: RoutedEndpoint, ctx: CallContext, call: EmbeddingsCall, signal: AbortSignal): Promise<Embedded> {
  const plugin = e.instance.plugin;
  const res = await gw.upstream.send(await plugin.embeddings!.request(call, ctx), plugin, signal);
  const json = await readJson(res.body, gw.config.server.upstream.maxResponseBytes);
  try {
    const answer = plugin.embeddings!.response(json, ctx, res.headers);
    const vectors = answer.vectors.map(readVector);
    checkVectors(vectors, call.input.length, call.dimensions);
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
