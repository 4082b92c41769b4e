/**
 * The key a request is cached under (docs/cache.md): SHA-256 of the account, the model and the
 * request's canonical JSON (object keys sorted at every depth), without `stream` and
 * `stream_options` (a cached answer replays as JSON or as a stream alike). Only the hash is
 * kept: the request's text never appears in a key.
 */
import { createHash } from "node:crypto";

/** Fields that change how an answer is delivered, not what it is. */
const DELIVERY = new Set(["stream", "stream_options"]);

export function cacheKey(account: string, model: string, body: object): string {
  const h = createHash("sha256");
  h.update(account).update("\0").update(model).update("\0");
  h.update(canonical(body, true));
  return h.digest("hex");
}

/** JSON with object keys sorted, so key order in the client's body does not matter. */
function canonical(v: unknown, top = false): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x)).join(",")}]`;
  const parts: string[] = [];
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || (top && DELIVERY.has(k))) continue;
    parts.push(`${JSON.stringify(k)}:${canonical(x)}`);
  }
  return `{${parts.join(",")}}`;
}
