/**
 * Where a client puts its gateway key: `Authorization: Bearer` (OpenAI's clients),
 * `x-api-key` (Anthropic's), `x-goog-api-key` or `?key=` (Google's). Each is accepted on
 * every authenticated route, so a client works by changing only its base URL and key
 * (docs/http.md, Authentication). The first one present wins, in that order.
 */
import { bearerToken } from "../access/keys.js";

/** undefined: no key sent; null: an Authorization header of another scheme (refused as invalid). */
export function credentialOf(header: (name: string) => string | null | undefined, url: string | undefined): string | null | undefined {
  const authorization = header("authorization");
  if (authorization) return bearerToken(authorization);
  const sent = header("x-api-key") || header("x-goog-api-key");
  if (sent) return sent.trim();
  return url === undefined ? undefined : queryKey(url);
}

/**
 * The request authenticates the way Google's clients do: its key is in `x-goog-api-key` or
 * `?key=` (no Authorization or x-api-key header came first). `GET /v1/models` then answers in
 * Google's shapes, and its errors in Google's envelope (docs/gemini.md, "Which shape").
 */
export function isGoogleCredential(header: (name: string) => string | null | undefined, url: string | undefined): boolean {
  if (header("authorization") || header("x-api-key")) return false;
  return Boolean(header("x-goog-api-key")) || (url !== undefined && queryKey(url) !== undefined);
}

/** `?key=` as Google's clients send it; only looked for when the URL has a query at all. */
function queryKey(url: string): string | undefined {
  const q = url.indexOf("?");
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get("key") || undefined;
}
