/**
 * Mistral accepts only tool call ids of exactly nine letters or digits ("Tool call id was
 * call_abc123 but must be a-z, A-Z, 0-9, with a length of 9": langchain-ai/langchain#24668).
 * Ids from other providers are mapped by hash, so a call and its result stay paired with no
 * state kept; ids Mistral issued itself already fit and pass through, so clients echo them back.
 */
import { createHash } from "node:crypto";

const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function mistralToolCallId(id: string): string {
  if (MISTRAL_ID.test(id)) return id;
  const digest = createHash("sha256").update(id).digest();
  let out = "";
  for (let i = 0; i < 9; i++) out += ALPHABET[digest[i]! % ALPHABET.length];
  return out;
}
