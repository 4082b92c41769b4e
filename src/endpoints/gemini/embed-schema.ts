/**
 * Google's EmbedContentRequest and BatchEmbedContentsRequest
 * (https://ai.google.dev/api/embeddings) as zod schemas: what the gateway reads is checked,
 * every other field kept (a native request travels as sent; embed-translate.ts decides what an
 * unknown field means for another provider). The model is the path's; a request's own `model`
 * (`models/<id>`, which Google's clients repeat in every request of a batch) is not read.
 */
import { z } from "zod";
import { invalidRequest } from "../../core/errors.js";
import { MAX_REQUEST_ITEMS } from "../../core/validate.js";
import { MAX_EMBEDDING_INPUTS } from "../../pipeline/embed-input.js";

const EmbedPart = z.looseObject({ text: z.string().optional() });

export const EmbedContentRequest = z.looseObject({
  model: z.string().optional(),
  content: z.looseObject({ role: z.string().optional(), parts: z.array(EmbedPart).min(1) }),
  taskType: z.string().optional(),
  title: z.string().optional(),
  outputDimensionality: z.number().int().min(1).optional(),
});
export type EmbedContentRequest = z.infer<typeof EmbedContentRequest>;

export const BatchEmbedContentsRequest = z.looseObject({ requests: z.array(EmbedContentRequest).min(1) });

/** Requests and their parts, counted before zod runs (the bound core/validate.ts puts on chat's messages). */
export function checkEmbedCount(json: unknown, single: boolean): void {
  const requests = single ? [json] : (json as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(requests)) return;
  if (requests.length > MAX_EMBEDDING_INPUTS) throw invalidRequest(`requests: at most ${MAX_EMBEDDING_INPUTS} items`, null, "requests");
  let items = requests.length;
  for (let i = 0; i < requests.length && items <= MAX_REQUEST_ITEMS; i++) {
    const parts = (requests[i] as { content?: { parts?: unknown } } | null)?.content?.parts;
    if (Array.isArray(parts)) items += parts.length;
  }
  if (items > MAX_REQUEST_ITEMS) {
    throw invalidRequest(`requests: A request may hold at most ${MAX_REQUEST_ITEMS} requests and parts together`, "request_too_large", "requests");
  }
}
