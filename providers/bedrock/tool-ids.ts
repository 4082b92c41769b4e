/**
 * Tool call ids as Converse accepts them. `toolUseId` must match `[a-zA-Z0-9_-]+`, 1-64
 * characters (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html);
 * Mistral models on Bedrock further need exactly nine letters or digits (vercel/ai
 * packages/amazon-bedrock/src/normalize-tool-call-id.ts; langchain-ai/langchain#24668).
 * An id that fits passes through unchanged; any other id is hashed, so a call and its result
 * stay paired with no stored state, and the per-call map turns it back into the client's own.
 */
import { createHash } from "node:crypto";

const CONVERSE_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;
const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Model ids, inference profiles (`us.mistral.…`) and ARNs all carry the vendor prefix. */
const isMistralModel = (model: string): boolean => model.includes("mistral.");

function alphanumeric(id: string, length: number): string {
  const digest = createHash("sha256").update(id).digest();
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[digest[i]! % ALPHANUMERIC.length];
  return out;
}

export function converseToolUseId(id: string, model: string): string {
  if (isMistralModel(model)) return MISTRAL_ID.test(id) ? id : alphanumeric(id, 9);
  if (CONVERSE_ID.test(id)) return id;
  // base64url stays inside the allowed alphabet; 24 characters of SHA-256 do not collide in practice.
  return `tooluse_${createHash("sha256").update(id).digest("base64url").slice(0, 24)}`;
}

/** Converse id -> the client's id, for every id the request had to rewrite. */
export type IdMap = ReadonlyMap<string, string>;

export const clientId = (ids: IdMap, id: string): string => ids.get(id) ?? id;
