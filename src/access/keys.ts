/**
 * Gateway API keys: `sk-` + 48 base62 characters (285 bits), stored as SHA-256 only.
 * The server answers lookups from memory; the gateway drops that cache whenever the store
 * says another connection or process changed something (Store.watch), so a revocation is
 * seen within 1 s.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { invalidApiKey, missingApiKey } from "../core/errors.js";
import type { KeyRecord, Store } from "../store/index.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_BODY_LENGTH = 48;

export function generateKey(): string {
  let out = "sk-";
  while (out.length < 3 + KEY_BODY_LENGTH) {
    for (const byte of randomBytes(64)) {
      // Rejection sampling keeps every character uniformly likely (248 = 4 * 62).
      if (byte < 248 && out.length < 3 + KEY_BODY_LENGTH) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export const hashKey = (key: string): string => createHash("sha256").update(key).digest("hex");

export const newKeyId = (): string => `key_${randomUUID().replaceAll("-", "").slice(0, 16)}`;

export const maskKey = (last4: string): string => `sk-…${last4}`;

export type KeyState = "active" | "revoked" | "expired";

export function keyState(key: Pick<KeyRecord, "revokedAt" | "expiresAt">, now: number): KeyState {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && key.expiresAt <= now) return "expired";
  return "active";
}

export interface Authenticator {
  /** The active key for an Authorization header value, or a 401 GatewayError. */
  /** `token` as http/credential.ts read it: undefined when none was sent, null for an unknown scheme. */
  authenticate(token: string | null | undefined, now: number): Promise<KeyRecord>;
  /** Forget cached keys (called when another connection committed, e.g. a CLI revoke). */
  invalidate(): void;
  /** Writes last-used times to the store. */
  flush(): Promise<void>;
}

export function createAuthenticator(store: Store): Authenticator {
  const cache = new Map<string, KeyRecord | null>();
  const lastUsed = new Map<string, number>();
  // While the store's change notices may be missed, a cached key may be revoked: read it again (docs/fleet.md).
  const hearing = store.hearing ? store.hearing.bind(store) : () => true;

  // Keyed by the presented token (already in this process's memory as a header), so the
  // SHA-256 runs once per key and cache lifetime, not once per request.
  const lookup = async (token: string, trusted: boolean): Promise<KeyRecord | null> => {
    let key = trusted ? cache.get(token) : undefined;
    if (key === undefined) {
      key = (await store.findKeyByHash(hashKey(token))) ?? null;
      // Bound the cache so a key-guessing client cannot grow memory without limit.
      if (cache.size > 10_000) cache.clear();
      cache.set(token, key);
    }
    return key;
  };

  return {
    async authenticate(token, now) {
      if (token === undefined || token === "") throw missingApiKey();
      if (token === null || !token.startsWith("sk-") || token.length > 200) throw invalidApiKey();
      const trusted = hearing();
      const key = (trusted ? cache.get(token) : undefined) ?? (await lookup(token, trusted));
      if (!key || keyState(key, now) !== "active") throw invalidApiKey();
      lastUsed.set(key.id, now);
      return key;
    },
    invalidate: () => cache.clear(),
    async flush() {
      if (lastUsed.size === 0) return;
      const batch = new Map(lastUsed);
      lastUsed.clear();
      await store.touchKeys(batch);
    },
  };
}

/**
 * The token of `Authorization: Bearer <token>`, or null for another scheme. Auth schemes are
 * case-insensitive (RFC 9110 §11.1; docs/http.md, Authentication): `bearer` and `BEARER` too.
 */
export function bearerToken(header: string): string | null {
  if (header.startsWith("Bearer ") || header.slice(0, 7).toLowerCase() === "bearer ") return header.slice(7).trim();
  return null;
}
