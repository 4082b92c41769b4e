/**
 * The answer side of a JSON response (docs/guardrails.md "Answers"): every string in the
 * answer, wherever the endpoint's form keeps it (message content, tool arguments, blocks,
 * parts), checked in place before it is rendered; `redact` rewrites the string, `block`
 * replaces the answer with the 400 naming the rule and where.
 */
import { GatewayError } from "../core/errors.js";
import { redact, type Scanner, type SecretHit } from "./engine.js";
import { record } from "./hits.js";
import type { Guard } from "./policy.js";

export function checkAnswer(guard: Guard, answer: unknown): void {
  const found: Array<{ path: string; hits: SecretHit[] }> = [];
  walk(answer, "", guard.scanner, guard.mode === "redact", found);
  for (const f of found) record(guard, f.hits, "response");
  if (found.length > 0 && guard.mode === "block") {
    const first = found[0]!;
    throw new GatewayError(
      400,
      "invalid_request_error",
      "guardrail_blocked",
      `The answer carries a secret (rule ${first.hits[0]!.rule}) at ${first.path}; it was not delivered.`,
      { param: first.path },
    );
  }
}

/** Depth-first over objects and arrays, strings rewritten in place when `rewrite`. */
function walk(value: unknown, path: string, scanner: Scanner, rewrite: boolean, found: Array<{ path: string; hits: SecretHit[] }>): void {
  if (!value || typeof value !== "object") return;
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [k, v] of entries) {
    const at = path ? `${path}.${k}` : String(k);
    if (typeof v !== "string") {
      walk(v, at, scanner, rewrite, found);
      continue;
    }
    const hits = scanner.scan(v);
    if (hits.length === 0) continue;
    found.push({ path: at, hits });
    if (rewrite) (value as Record<string | number, unknown>)[k] = redact(v, hits);
  }
}
