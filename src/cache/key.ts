/**
 * The key a request is cached under (docs/cache.md): SHA-256 of the account, the model and the
 * request's canonical JSON (object keys sorted at every depth), without `stream` and
 * `stream_options` (a cached answer replays as JSON or as a stream alike), and what the request
 * carries beside its body (`extra`: the gateway's routing fields, `models` and `provider`). Only the hash is
 * kept: the request's text never appears in a key.
 */
import { createHash } from "node:crypto";

/** Fields that change how an answer is delivered, not what it is. */
const DELIVERY = new Set(["stream", "stream_options"]);

export function cacheKey(account: string, model: string, body: object, extra: object = {}): string {
  const h = createHash("sha256");
  h.update(account).update("\0").update(model).update("\0");
  const top: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!DELIVERY.has(k)) top[k] = v;
  h.update(canonical(top)).update("\0").update(canonical(extra));
  return h.digest("hex");
}

/** JSON with object keys sorted, so key order in the client's body does not matter (built by appending: this runs per request). */
function canonical(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) out += (i ? "," : "") + canonical(v[i]);
    return out + "]";
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length > 1) keys.sort();
  let out = "{";
  for (const k of keys) {
    if (o[k] === undefined) continue;
    out += (out.length > 1 ? "," : "") + JSON.stringify(k) + ":" + canonical(o[k]);
  }
  return out + "}";
}
