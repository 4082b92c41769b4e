/**
 * Embeddings on the wire for fake upstreams. Each vector is derived from its text, so an
 * answer whose vectors come back in another order than the inputs shows it.
 * - OpenAI CreateEmbeddingResponse (openai/openai-openapi; the base64 form is the
 *   little-endian float32 bytes, as openai-node's embeddings.create decodes them):
 *   `{object: "list", data: [{object: "embedding", index, embedding}], model, usage: {prompt_tokens, total_tokens}}`.
 * - Gemini BatchEmbedContentsResponse (https://ai.google.dev/api/embeddings): `{embeddings: [{values}]}`, no usage.
 */
import type { Recorded, Reply } from "./fake-upstream.js";

/** A vector of `dims` values (default 3) that depends on the text. */
export function vectorOf(text: string, dims = 3): number[] {
  const base = [text.length / 10, (text.charCodeAt(0) || 1) / 7, -0.1 * text.length - 0.3];
  return Array.from({ length: dims }, (_, k) => base[k % 3]! + Math.floor(k / 3));
}

/** What a client gets from base64: each value rounded to float32. */
export const float32 = (v: number[]) => v.map((x) => Math.fround(x));

export function base64Of(v: number[]): string {
  const bytes = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString("base64");
}

export function decodeBase64(text: string): number[] {
  const bytes = Buffer.from(text, "base64");
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

/** One token per character or token id: within what the gateway holds for (at least a byte per token). */
export function tokensOf(inputs: Array<string | number[]>): number {
  return inputs.reduce((n, x) => n + x.length, 0);
}

/**
 * An OpenAI-format provider's answer to the request it received (texts, dimensions,
 * encoding_format); usage is `promptTokens`, by default one token per character, or absent for null.
 */
export function openaiEmbeddingReply(req: Recorded, promptTokens?: number | null, model = "text-embedding-3-small"): Reply {
  const body = req.body as { input: string | string[]; dimensions?: number; encoding_format?: string };
  const inputs = typeof body.input === "string" ? [body.input] : body.input;
  if (promptTokens === undefined) promptTokens = tokensOf(inputs);
  const data = inputs.map((text, index) => {
    const v = vectorOf(typeof text === "string" ? text : `#${(text as number[]).join(",")}`, body.dimensions);
    return { object: "embedding", index, embedding: body.encoding_format === "base64" ? base64Of(v) : v };
  });
  return { json: { object: "list", data, model, ...(promptTokens !== null ? { usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } } : {}) } };
}

/** A Gemini provider's answer to a `:batchEmbedContents` request: one vector per request, `dims` wide unless it asked for `outputDimensionality`. */
export function googleEmbeddingReply(req: Recorded, dims = 3): Reply {
  const requests = (req.body as { requests: Array<{ content: { parts: Array<{ text: string }> }; outputDimensionality?: number }> }).requests;
  return { json: { embeddings: requests.map((r) => ({ values: vectorOf(r.content.parts[0]!.text, r.outputDimensionality ?? dims) })) } };
}
