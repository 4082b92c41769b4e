/**
 * Vectors between the provider and the client. Whatever the provider sent (JSON numbers, or
 * base64 where it was asked for it) is checked, then written in the form the client asked
 * for: numbers (as the provider sent them), or base64 of the little-endian float32 bytes,
 * which is what the official `openai` client decodes (it asks for base64 by default).
 */
import { InvalidAnswer } from "../plugin/failure.js";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Numbers as the provider sent them, or float32 read from its base64. */
export type Vector = number[] | Float32Array;

/** One upstream vector, checked; an answer that is not one is that endpoint's failure. */
export function readVector(v: unknown): Vector {
  if (typeof v === "string") return fromBase64(v);
  if (!Array.isArray(v) || v.length === 0) throw new InvalidAnswer("embedding is not a non-empty array of numbers");
  for (const x of v as unknown[]) {
    // float32 range too: a larger number would become Infinity in the base64 form.
    if (typeof x !== "number" || !Number.isFinite(Math.fround(x))) throw new InvalidAnswer("embedding holds a value that is not a finite float32");
  }
  return v as number[];
}

function fromBase64(text: string): Float32Array {
  if (!BASE64.test(text) || text.length % 4 !== 0) throw new InvalidAnswer("embedding is not base64");
  const bytes = Buffer.from(text, "base64");
  if (bytes.length === 0 || bytes.length % 4 !== 0) throw new InvalidAnswer("base64 embedding is not a whole number of float32 values");
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) {
    const x = bytes.readFloatLE(i * 4);
    if (!Number.isFinite(x)) throw new InvalidAnswer("embedding holds a value that is not a finite number");
    out[i] = x;
  }
  return out;
}

/** Little-endian float32 whatever the host's byte order, then base64. */
function toBase64(v: Float32Array): string {
  const bytes = Buffer.allocUnsafe(v.length * 4);
  for (let i = 0; i < v.length; i++) bytes.writeFloatLE(v[i]!, i * 4);
  return bytes.toString("base64");
}

/** The vectors of one answer: as many as inputs, all the same length, the asked `dimensions` if any. */
export function checkVectors(vectors: Vector[], inputs: number, dimensions: number | undefined): void {
  if (vectors.length !== inputs) throw new InvalidAnswer(`upstream sent ${vectors.length} embeddings for ${inputs} inputs`);
  const width = dimensions ?? vectors[0]?.length;
  if (vectors.some((v) => v.length !== width)) throw new InvalidAnswer("upstream embeddings differ in length from what was asked");
}

/** The `embedding` field as the client asked for it. */
export function render(v: Vector, encoding: "float" | "base64"): number[] | string {
  if (encoding === "base64") return toBase64(v instanceof Float32Array ? v : Float32Array.from(v));
  return Array.isArray(v) ? v : Array.from(v);
}
