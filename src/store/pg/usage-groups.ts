/**
 * Usage by one grouping on PostgreSQL, the same query as SQLite's (sqlite/usage-groups.ts):
 * ledger rows in the range plus the daily rollups of pruned ones; requests without a tag are
 * the day's total less its tagged part. bigint sums arrive as strings and stay exact.
 */
import type pg from "pg";
import type { UsageGroup, UsageGrouping, UsageRange } from "../usage-groups.js";
import { query } from "./db.js";

const DAY_MS = 86_400_000;

/** $1 account, $2 since, $3 until, $4 the member (or null), $5 the tag's name (tag grouping only). */
const KEYS: Record<UsageGrouping["by"], { ledger: string; rollup: string }> = {
  member: { ledger: "k.created_by", rollup: "k.created_by" },
  key: { ledger: "l.key_id", rollup: "u.key_id" },
  model: { ledger: "l.model", rollup: "u.model" },
  endpoint: { ledger: "l.endpoint", rollup: "u.endpoint" },
  tool: { ledger: "CASE WHEN l.endpoint = 'mcp' THEN l.model END", rollup: "CASE WHEN u.endpoint = 'mcp' THEN u.model END" },
  day: { ledger: `(l.created_at - l.created_at % ${DAY_MS})::text`, rollup: "u.day::text" },
  tag: { ledger: "l.tags ->> $5::text", rollup: "" },
};

const ACCOUNT = (t: string) => `($1::text IS NULL OR ${t}.account = $1)`;
/** A member's own keys only (as pg/ledger.ts filters a member's usage). */
const MEMBER = (t: string) => `($4::text IS NULL OR ${t}.key_id IN (SELECT id FROM keys WHERE created_by = $4))`;
const RANGE = (col: string) => `($2::bigint IS NULL OR ${col} >= $2) AND ($3::bigint IS NULL OR ${col} < $3)`;
const SUMS = (t: string, sign = "") =>
  `${sign}COALESCE(SUM(${t}.requests), 0), ${sign}COALESCE(SUM(${t}.prompt_tokens), 0), ${sign}COALESCE(SUM(${t}.completion_tokens), 0), ${sign}COALESCE(SUM(${t}.cost), 0)`;

/** As on SQLite: for a member, a rolled-up day's requests stay in the null group (usage_daily_tags has no key). */
function rollupPart(by: UsageGrouping["by"]): string {
  const where = `WHERE ${ACCOUNT("u")} AND ${RANGE("u.day")} AND ${MEMBER("u")}`;
  if (by !== "tag") return `SELECT ${KEYS[by].rollup}, ${SUMS("u")} FROM usage_daily u LEFT JOIN keys k ON k.id = u.key_id ${where} GROUP BY 1`;
  const tagWhere = `WHERE t.name = $5 AND ${ACCOUNT("t")} AND ${RANGE("t.day")} AND $4::text IS NULL`;
  return `SELECT NULL::text, ${SUMS("u")} FROM usage_daily u ${where}
    UNION ALL SELECT t.value, ${SUMS("t")} FROM usage_daily_tags t ${tagWhere} GROUP BY t.value
    UNION ALL SELECT NULL::text, ${SUMS("t", "-")} FROM usage_daily_tags t ${tagWhere}`;
}

const sql = (by: UsageGrouping["by"]) => `SELECT grp, SUM(requests) AS requests, SUM(prompt) AS prompt, SUM(completion) AS completion, SUM(cost) AS cost
  FROM (
    SELECT ${KEYS[by].ledger} AS grp, COUNT(*)::numeric AS requests, SUM(l.prompt_tokens) AS prompt, SUM(l.completion_tokens) AS completion,
      SUM(l.cost) AS cost
    FROM ledger l LEFT JOIN keys k ON k.id = l.key_id
    WHERE ${ACCOUNT("l")} AND ${RANGE("l.created_at")} AND ${MEMBER("l")} GROUP BY 1
    UNION ALL
    ${rollupPart(by)}
  ) g GROUP BY grp HAVING SUM(requests) > 0`;

interface Row {
  grp: string | null;
  requests: string;
  prompt: string;
  completion: string;
  cost: string;
}

export function pgUsageGroups(pool: pg.Pool) {
  return {
    async usageGroups(grouping: UsageGrouping, range: UsageRange): Promise<UsageGroup[]> {
      const params: unknown[] = [range.account ?? null, range.since ?? null, range.until ?? null, range.member ?? null];
      if (grouping.by === "tag") params.push(grouping.tag);
      const { rows } = await query<Row>(pool, sql(grouping.by), params);
      return rows.map((r) => ({
        group: r.grp === null ? null : grouping.by === "day" ? new Date(Number(r.grp)).toISOString().slice(0, 10) : r.grp,
        requests: Number(r.requests),
        promptTokens: Number(r.prompt),
        completionTokens: Number(r.completion),
        cost: BigInt(r.cost),
      }));
    },
  };
}
