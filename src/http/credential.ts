/**
 * Where a client puts its gateway key: `Authorization: Bearer` (OpenAI's clients),
 * `x-api-key` (Anthropic's), `x-goog-api-key` or `?key=` (Google's). Each is accepted on
 * every authenticated route, so a client works by changing only its base URL and key
 * (docs/http.md, Authentication). The first one that carries a key wins, in that order.
 */
import { bearerToken } from "../access/keys.js";

/** undefined: no key sent; null: an Authorization header of another scheme (refused as invalid). */
export function credentialOf(header: (name: string) => string | null | undefined, url: string | undefined): string | null | undefined {
  const authorization = header("authorization");
  const sent = authorization ? authorizationKey(authorization) : undefined;
  if (sent !== undefined) return sent;
  const other = header("x-api-key") || header("x-goog-api-key");
  if (other) return other.trim();
  return url === undefined ? undefined : queryKey(url);
}

/**
 * The request authenticates the way Google's clients do: its key is in `x-goog-api-key` or
 * `?key=` (no Authorization or x-api-key header came first). `GET /v1/models` then answers in
 * Google's shapes, and its errors in Google's envelope (docs/gemini.md, "Which shape").
 */
export function isGoogleCredential(header: (name: string) => string | null | undefined, url: string | undefined): boolean {
  const authorization = header("authorization");
  if ((authorization && authorizationKey(authorization) !== undefined) || header("x-api-key")) return false;
  return Boolean(header("x-goog-api-key")) || (url !== undefined && queryKey(url) !== undefined);
}

/**
 * The key an Authorization header carries. One that carries none (blank, or `Bearer` and
 * nothing after it, which is what an unset environment variable makes a client send) counts
 * as not sent, as an empty `x-api-key` does: the next place is looked at (docs/http.md).
 */
function authorizationKey(value: string): string | null | undefined {
  const v = value.trim();
  if (v === "" || v.toLowerCase() === "bearer") return undefined;
  const token = bearerToken(v);
  return token === "" ? undefined : token;
}

/** `?key=` as Google's clients send it; only looked for when the URL has a query at all. */
function queryKey(url: string): string | undefined {
  const q = url.indexOf("?");
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get("key") || undefined;
}
