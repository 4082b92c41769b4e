/** A request's hits, each (rule, action, direction) once: what the ledger, the log line and the metrics count (docs/guardrails.md "Where hits show"). */
import type { SecretHit } from "./engine.js";
import type { Direction, Guard } from "./policy.js";

export function record(guard: Guard, hits: readonly Pick<SecretHit, "rule">[], direction: Direction): void {
  for (const { rule } of hits) {
    if (!guard.hits.some((h) => h.rule === rule && h.direction === direction)) guard.hits.push({ rule, action: guard.mode, direction });
  }
}
