/**
 * The time range of a usage breakdown (docs/usage.md, "Ranges"), read the same from `gateway
 * usage --since/--until` and the dashboard's From/Until fields: a duration back from now
 * (`7d`, `24h`), a date (`2026-11-01`: UTC midnight; as `until`, the whole day is included) or
 * an ISO timestamp (exact; `until` is exclusive).
 */
import { invalidRequest } from "../core/errors.js";
import type { UsageRange } from "../store/index.js";

const DAY_MS = 86_400_000;
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function bound(value: string, now: number, which: "since" | "until"): number {
  const text = value.trim();
  const d = /^(\d+)([smhdw])$/.exec(text);
  if (d) return now - Number(d[1]) * UNITS[d[2]!]!;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/^\d{4}-\d{2}-\d{2}/.test(text))
    throw invalidRequest(
      `${which}: expected a date (2026-11-01), an ISO timestamp or a duration like 7d, got '${value.slice(0, 40)}'.`,
      "invalid_range",
      which,
    );
  return which === "until" && DATE_ONLY.test(text) ? at + DAY_MS : at;
}

/** The range for the store; an absent end is open. */
export function usageRange(opts: { account?: string; since?: string; until?: string }, now: number): UsageRange {
  const since = opts.since ? bound(opts.since, now, "since") : undefined;
  const until = opts.until ? bound(opts.until, now, "until") : undefined;
  if (since !== undefined && until !== undefined && since >= until)
    throw invalidRequest(`The range is empty: since (${opts.since}) is not before until (${opts.until}).`, "invalid_range", "until");
  return { account: opts.account, since, until };
}
