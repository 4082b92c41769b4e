/**
 * Usage by one grouping on SQLite (store/usage-groups.ts): ledger rows in the range plus the
 * daily rollups of pruned ones. A tag's rollups are per tag pair (usage_daily_tags); requests
 * without the tag are the day's total (usage_daily) less its tagged part, exact integers.
 */
import type Database from "better-sqlite3";
import type { UsageGroup, UsageGrouping, UsageRange } from "../usage-groups.js";

const DAY_MS = 86_400_000;

/** The key of a ledger row (`l`, its key `k`) and of a usage_daily row (`u`, its key `k`) per grouping. */
const KEYS: Record<UsageGrouping["by"], { ledger: string; rollup: string }> = {
  member: { ledger: "k.created_by", rollup: "k.created_by" },
  key: { ledger: "l.key_id", rollup: "u.key_id" },
  model: { ledger: "l.model", rollup: "u.model" },
  endpoint: { ledger: "l.endpoint", rollup: "u.endpoint" },
  tool: { ledger: "CASE WHEN l.endpoint = 'mcp' THEN l.model END", rollup: "CASE WHEN u.endpoint = 'mcp' THEN u.model END" },
  day: { ledger: `l.created_at - l.created_at % ${DAY_MS}`, rollup: "u.day" },
  tag: { ledger: "(SELECT t.value FROM json_each(l.tags) t WHERE t.key = @tag)", rollup: "" },
};

const ACCOUNT = (col: string) => `(@account IS NULL OR ${col}.account = @account)`;
/** A member's own keys only (as sqlite/ledger.ts filters a member's usage). */
const MEMBER = (col: string) => `(@member IS NULL OR ${col}.key_id IN (SELECT id FROM keys WHERE created_by = @member))`;
const RANGE = (col: string) => `(@since IS NULL OR ${col} >= @since) AND (@until IS NULL OR ${col} < @until)`;
const SUMS = (t: string, sign = "") =>
  `${sign}COALESCE(SUM(${t}.requests), 0), ${sign}COALESCE(SUM(${t}.prompt_tokens), 0), ${sign}COALESCE(SUM(${t}.completion_tokens), 0), ${sign}COALESCE(SUM(${t}.cost), 0)`;

/**
 * usage_daily_tags has no key: for a member, a rolled-up day's requests stay in the null group
 * (their exact total from usage_daily) rather than show the whole account's tags.
 */
function rollupPart(by: UsageGrouping["by"]): string {
  const where = `WHERE ${ACCOUNT("u")} AND ${RANGE("u.day")} AND ${MEMBER("u")}`;
  if (by !== "tag") return `SELECT ${KEYS[by].rollup}, ${SUMS("u")} FROM usage_daily u LEFT JOIN keys k ON k.id = u.key_id ${where} GROUP BY 1`;
  const tagWhere = `WHERE t.name = @tag AND ${ACCOUNT("t")} AND ${RANGE("t.day")} AND @member IS NULL`;
  return `SELECT NULL, ${SUMS("u")} FROM usage_daily u ${where}
    UNION ALL SELECT t.value, ${SUMS("t")} FROM usage_daily_tags t ${tagWhere} GROUP BY t.value
    UNION ALL SELECT NULL, ${SUMS("t", "-")} FROM usage_daily_tags t ${tagWhere}`;
}

// Driven from `accounts` as in sqlite/ledger.ts: a range scan of the (account, created_at) index per account.
const sql = (by: UsageGrouping["by"]) => `SELECT grp, SUM(requests) AS requests, SUM(prompt) AS prompt, SUM(completion) AS completion, SUM(cost) AS cost
  FROM (
    SELECT ${KEYS[by].ledger} AS grp, COUNT(*) AS requests, SUM(l.prompt_tokens) AS prompt, SUM(l.completion_tokens) AS completion, SUM(l.cost) AS cost
    FROM accounts a CROSS JOIN ledger l ON l.account = a.id LEFT JOIN keys k ON k.id = l.key_id
    WHERE (@account IS NULL OR a.id = @account) AND ${RANGE("l.created_at")} AND ${MEMBER("l")} GROUP BY 1
    UNION ALL
    ${rollupPart(by)}
  ) GROUP BY grp HAVING SUM(requests) > 0`;

interface Row {
  grp: string | bigint | null;
  requests: bigint;
  prompt: bigint;
  completion: bigint;
  cost: bigint;
}

export function sqliteUsageGroups(db: Database.Database) {
  const statements = new Map<UsageGrouping["by"], Database.Statement>();
  const statement = (by: UsageGrouping["by"]) => {
    let s = statements.get(by);
    if (!s) statements.set(by, (s = db.prepare(sql(by)).safeIntegers()));
    return s;
  };
  return {
    usageGroups: (grouping: UsageGrouping, range: UsageRange): UsageGroup[] => {
      const params = {
        account: range.account ?? null,
        since: range.since ?? null,
        until: range.until ?? null,
        member: range.member ?? null,
        ...(grouping.by === "tag" ? { tag: grouping.tag } : {}),
      };
      return (statement(grouping.by).all(params) as Row[]).map((r) => ({
        group: r.grp === null ? null : grouping.by === "day" ? new Date(Number(r.grp)).toISOString().slice(0, 10) : String(r.grp),
        requests: Number(r.requests),
        promptTokens: Number(r.prompt),
        completionTokens: Number(r.completion),
        cost: r.cost,
      }));
    },
  };
}
