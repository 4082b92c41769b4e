/**
 * The request side (docs/guardrails.md "Requests"): every text a request carries, checked
 * before any upstream call. The raw body is scanned first, as bytes on the wire, which costs
 * one prefilter pass when nothing is found (the common case). Only when the raw text has a hit
 * is the JSON parsed, each string checked where it is (its path names the message, block, item
 * or part), and under `redact` the body rebuilt with each secret replaced; the pipeline then
 * parses and forwards that body, so a natively forwarded request carries the redaction too.
 */
import { GatewayError } from "../core/errors.js";
import { redact, type Scanner, type SecretHit } from "./engine.js";
import { record } from "./hits.js";
import type { Guard } from "./policy.js";

/** A `\u00XX` escape of a printable ASCII character could hide a keyword from the raw pass. */
const ESCAPED_ASCII = /\\u00[2-7][0-9a-fA-F]/;

/** The body to forward: `raw` itself unless a secret was redacted. Throws the 400 under `block`. */
export function checkRequest(guard: Guard, raw: Buffer): Buffer {
  const text = raw.toString("utf8");
  if (guard.scanner.scan(text).length === 0 && !ESCAPED_ASCII.test(text)) return raw;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return raw; // not JSON: the endpoint's parse refuses it, nothing is forwarded
  }
  const found: Array<{ path: string; hits: SecretHit[] }> = [];
  const cleaned = visit(body, "", guard.scanner, found);
  if (found.length === 0) return raw;
  for (const f of found) record(guard, f.hits, "request");
  if (guard.mode === "block") throw blocked(found);
  return guard.mode === "redact" ? Buffer.from(JSON.stringify(cleaned)) : raw;
}

/** The value with every string's secrets redacted (a copy only where something changed); hits collected with their paths. */
function visit(value: unknown, path: string, scanner: Scanner, found: Array<{ path: string; hits: SecretHit[] }>): unknown {
  if (typeof value === "string") {
    const hits = scanner.scan(value);
    if (hits.length === 0) return value;
    found.push({ path: path || "body", hits });
    return redact(value, hits);
  }
  if (Array.isArray(value)) return value.map((v, i) => visit(v, join(path, String(i)), scanner, found));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // A key is text too, and the path must never show a secret: a key with one is redacted in both.
      const name = visit(k, join(path, "(a key)"), scanner, found) as string;
      out[name] = visit(v, join(path, name), scanner, found);
    }
    return out;
  }
  return value;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** The 400 (docs/guardrails.md): the rule and where, never the secret. */
function blocked(found: ReadonlyArray<{ path: string; hits: readonly SecretHit[] }>): GatewayError {
  const first = found[0]!;
  const count = found.reduce((n, f) => n + f.hits.length, 0);
  const more = count > 1 ? ` (${count} secrets in all)` : "";
  return new GatewayError(
    400,
    "invalid_request_error",
    "guardrail_blocked",
    `${first.path}: a secret (rule ${first.hits[0]!.rule}) is in the request${more}; it was not forwarded. Remove it, or ask the operator for the redact mode.`,
    { param: first.path },
  );
}

/** A failure inside the checker (contract §18: fail closed): the request is refused and nothing is forwarded. */
export function guardFailed(cause: unknown): GatewayError {
  return new GatewayError(500, "upstream_error", "guardrail_failed", "The secret guardrail could not check this request, so it was not forwarded.", { cause });
}
