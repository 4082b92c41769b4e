/**
 * Usage broken down one way (docs/usage.md): `gateway usage --by` and the dashboard's Usage page
 * read the same rows, and the CSV is those rows (`Export CSV` downloads what the CLI prints).
 * Money as exact decimal USD strings.
 */
import { invalidRequest } from "../core/errors.js";
import { nanoToUsd } from "../core/money.js";
import type { Store, UsageGroup, UsageGrouping, UsageRange } from "../store/index.js";

export interface UsageGroupRow {
  /** null: requests without the tag, or keys no dashboard user created (docs/usage.md). */
  group: string | null;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: string;
}

/** `tag:team`, `member`, `key`, `model`, `endpoint` or `day`. */
export function parseGrouping(text: string): UsageGrouping {
  const t = text.trim();
  if (t.startsWith("tag:")) {
    const tag = t.slice(4);
    if (tag === "" || tag.length > 64) throw invalidRequest("by: tag:NAME needs a tag name of 1 to 64 characters (tag:team).", "invalid_grouping", "by");
    return { by: "tag", tag };
  }
  if (t === "member" || t === "key" || t === "model" || t === "endpoint" || t === "day" || t === "tool") return { by: t };
  throw invalidRequest(`by: expected tag:NAME, member, key, model, endpoint, tool or day, got '${t.slice(0, 40)}'.`, "invalid_grouping", "by");
}

/** Days in order; any other grouping by cost, then requests, the null group last among equals. */
function order(by: UsageGrouping["by"]) {
  return (a: UsageGroup, b: UsageGroup): number => {
    if (by !== "day") {
      if (a.cost !== b.cost) return a.cost > b.cost ? -1 : 1;
      if (a.requests !== b.requests) return b.requests - a.requests;
    }
    if (a.group === b.group) return 0;
    if (a.group === null) return 1;
    if (b.group === null) return -1;
    return a.group < b.group ? -1 : 1;
  };
}

export async function usageGroups(store: Store, grouping: UsageGrouping, range: UsageRange): Promise<UsageGroupRow[]> {
  // By tool, only MCP tool calls are rows: the model requests' null group is left out.
  const groups = (await store.usageGroups(grouping, range)).filter((g) => grouping.by !== "tool" || g.group !== null);
  return groups.sort(order(grouping.by)).map((g) => ({
    group: g.group,
    requests: g.requests,
    prompt_tokens: g.promptTokens,
    completion_tokens: g.completionTokens,
    cost: nanoToUsd(g.cost),
  }));
}

const CSV_COLUMNS = ["group", "requests", "prompt_tokens", "completion_tokens", "cost"] as const;

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled; null is an empty field. */
function field(v: string | number | null): string {
  const s = v === null ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** A header line, then one line per row, each ending in a line feed. */
export function usageCsv(rows: UsageGroupRow[]): string {
  return [CSV_COLUMNS.join(","), ...rows.map((r) => CSV_COLUMNS.map((c) => field(r[c])).join(","))].map((line) => `${line}\n`).join("");
}
