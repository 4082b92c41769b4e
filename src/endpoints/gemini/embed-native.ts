/**
 * Google's embed requests on an endpoint whose plugin speaks them natively
 * (`native.gemini.embed`, docs/gemini.md "Embeddings"): the client's requests, cut to the
 * plugin's batch size, each batch one `:batchEmbedContents` call, the vectors checked (one per
 * request, each as wide as its own `outputDimensionality` asked).
 */
import type { AdapterServices } from "../../pipeline/endpoint.js";
import type { RoutedEndpoint } from "../../catalog/catalog.js";
import { callContext, embedBatch, inBatches, type Embedded } from "../../pipeline/embed-call.js";
import type { Vector } from "../../pipeline/embed-vectors.js";
import type { NativeGeminiEmbed } from "../../plugin/contract.js";
import { InvalidAnswer } from "../../plugin/failure.js";
import type { EmbedContentRequest } from "./embed-schema.js";

export function nativeEmbed(
  gw: AdapterServices,
  e: RoutedEndpoint,
  native: NativeGeminiEmbed,
  requests: EmbedContentRequest[],
  signal: AbortSignal,
): Promise<Embedded> {
  const ctx = callContext(e);
  return inBatches(requests.length, native.maxBatch, signal, (from, to, linked) => {
    const batch = requests.slice(from, to);
    return embedBatch(gw, e.instance.plugin, native.request(batch, ctx), linked, native.response, (vectors) => checkWidths(vectors, batch));
  });
}

function checkWidths(vectors: Vector[], requests: EmbedContentRequest[]): void {
  if (vectors.length !== requests.length) throw new InvalidAnswer(`upstream sent ${vectors.length} embeddings for ${requests.length} requests`);
  vectors.forEach((v, i) => {
    const asked = requests[i]!.outputDimensionality;
    if (asked !== undefined && v.length !== asked) throw new InvalidAnswer("upstream embeddings differ in length from what was asked");
  });
}
