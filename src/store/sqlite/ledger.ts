/**
 * The ledger on SQLite: usage, retention and the dashboard's activity. Per-request rows older
 * than the retention are folded into `usage_daily` and deleted in the same transaction, so the
 * rollups always sum to exactly the rows they replaced; usage and spend per UTC day read rollups
 * and rows together. Sums are read as BigInt: exact past 2^53 nano-USD.
 */
import type Database from "better-sqlite3";
import { writeTransaction } from "./tx.js";
import type { DailySpend, PruneResult, RecentRequest, UsageFilter, UsageRow } from "../ledger.js";

const DAY_MS = 86_400_000;

/** A usage row as SQLite returns it with safe integers on: every count a BigInt. */
type BigRow = Omit<UsageRow, "requests" | "promptTokens" | "completionTokens" | "cacheHits" | "bounded"> & {
  requests: bigint;
  promptTokens: bigint;
  completionTokens: bigint;
  cacheHits: bigint;
  bounded: bigint;
};

/** A row billed at a bound (docs/limits.md): it kept what was reported. `t`: the ledger's alias and a dot, or nothing. */
const boundedRow = (t: string) => `(${t}reported_prompt_tokens IS NOT NULL OR ${t}reported_tool_calls IS NOT NULL)`;

// The ledger's only time index is (account, created_at): driving every query from `accounts`
// (CROSS JOIN fixes that loop order in SQLite) makes each one a range scan per account
// instead of a scan of the whole ledger, with no second index to maintain on the request
// path. Every ledger row's account exists (keys reference accounts), and the rollup and the
// delete use the very same predicate.
const OLD_ROWS = "FROM accounts a CROSS JOIN ledger l ON l.account = a.id WHERE l.created_at < @before";

interface RecentRow {
  request_id: string;
  created_at: number;
  key_id: string;
  key_name: string | null;
  model: string;
  provider: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  byok: number;
  status: string;
  http_status: number;
  latency_ms: number;
}

export function sqliteLedger(db: Database.Database) {
  const s = {
    rollup:
      db.prepare(`INSERT INTO usage_daily (day, account, key_id, model, byok, endpoint, requests, prompt_tokens, completion_tokens, cost, list_cost, uncollected,
        cache_hits, cache_saved, bounded, tool_cost)
      SELECT l.created_at - l.created_at % ${DAY_MS}, l.account, l.key_id, l.model, l.byok, l.endpoint, COUNT(*),
        SUM(l.prompt_tokens), SUM(l.completion_tokens), SUM(l.cost), SUM(l.list_cost), SUM(l.uncollected),
        SUM(l.usage_source = 'cache_hit'), SUM(CASE WHEN l.usage_source = 'cache_hit' THEN l.list_cost ELSE 0 END),
        SUM(${boundedRow("l.")}), SUM(l.tool_cost)
      ${OLD_ROWS}
      GROUP BY 1, 2, 3, 4, 5, 6
      ON CONFLICT (day, account, key_id, model, byok, endpoint) DO UPDATE SET
        requests = requests + excluded.requests, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens,
        cost = cost + excluded.cost, list_cost = list_cost + excluded.list_cost, uncollected = uncollected + excluded.uncollected,
        cache_hits = cache_hits + excluded.cache_hits, cache_saved = cache_saved + excluded.cache_saved,
        bounded = bounded + excluded.bounded, tool_cost = tool_cost + excluded.tool_cost`),
    // Tags (docs/usage.md): one rollup row per day, account and tag pair of the rows going.
    rollupTags: db.prepare(`INSERT INTO usage_daily_tags (day, account, name, value, requests, prompt_tokens, completion_tokens, cost)
      SELECT l.created_at - l.created_at % ${DAY_MS}, l.account, t.key, t.value, COUNT(*), SUM(l.prompt_tokens), SUM(l.completion_tokens), SUM(l.cost)
      FROM accounts a CROSS JOIN ledger l ON l.account = a.id CROSS JOIN json_each(l.tags) t WHERE l.created_at < @before AND l.tags IS NOT NULL
      GROUP BY 1, 2, 3, 4
      ON CONFLICT (account, name, day, value) DO UPDATE SET
        requests = requests + excluded.requests, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens, cost = cost + excluded.cost`),
    // Attempts are written with their request's ledger row, in its transaction: they go with it.
    dropAttempts: db.prepare(`DELETE FROM attempts WHERE request_id IN (SELECT l.request_id ${OLD_ROWS})`),
    dropRows: db.prepare(`DELETE FROM ledger WHERE id IN (SELECT l.id ${OLD_ROWS})`),
    oldest: db.prepare("SELECT MIN((SELECT MIN(created_at) FROM ledger WHERE account = a.id)) FROM accounts a").pluck(),
    usage: db
      .prepare(
        `SELECT u.model, u.key_id AS keyId, k.name AS keyName, u.endpoint, SUM(u.requests) AS requests,
        SUM(u.prompt_tokens) AS promptTokens, SUM(u.completion_tokens) AS completionTokens,
        SUM(u.cost) AS cost, SUM(u.list_cost) AS listCost, SUM(u.uncollected) AS uncollected,
        SUM(u.cache_hits) AS cacheHits, SUM(u.cache_saved) AS cacheSaved, SUM(u.bounded) AS bounded, SUM(u.tool_cost) AS toolCost
      FROM (
        SELECT model, key_id, endpoint, COUNT(*) AS requests, SUM(prompt_tokens) AS prompt_tokens,
          SUM(completion_tokens) AS completion_tokens, SUM(cost) AS cost, SUM(list_cost) AS list_cost, SUM(uncollected) AS uncollected,
          SUM(usage_source = 'cache_hit') AS cache_hits, SUM(CASE WHEN usage_source = 'cache_hit' THEN list_cost ELSE 0 END) AS cache_saved,
          SUM(${boundedRow("")}) AS bounded, SUM(tool_cost) AS tool_cost
        FROM ledger WHERE (@account IS NULL OR account = @account) AND (@since IS NULL OR created_at >= @since)
          AND (@member IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = @member))
        GROUP BY model, key_id, endpoint
        UNION ALL
        SELECT model, key_id, endpoint, SUM(requests), SUM(prompt_tokens), SUM(completion_tokens), SUM(cost), SUM(list_cost), SUM(uncollected),
          SUM(cache_hits), SUM(cache_saved), SUM(bounded), SUM(tool_cost)
        FROM usage_daily WHERE (@account IS NULL OR account = @account) AND (@since IS NULL OR day >= @since)
          AND (@member IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = @member))
        GROUP BY model, key_id, endpoint
      ) u LEFT JOIN keys k ON k.id = u.key_id
      GROUP BY u.model, u.key_id, u.endpoint ORDER BY u.model, u.key_id, u.endpoint`,
      )
      .safeIntegers(),
    ledgerDays: db
      .prepare(
        `SELECT (created_at / ${DAY_MS}) * ${DAY_MS} AS day, SUM(cost) AS cost, COUNT(*) AS requests
      FROM ledger WHERE account = @account AND created_at >= @since AND (@member IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = @member)) GROUP BY 1`,
      )
      .safeIntegers(),
    rollupDays: db
      .prepare(
        `SELECT day, SUM(cost) AS cost, SUM(requests) AS requests
      FROM usage_daily WHERE account = @account AND day >= @since AND (@member IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = @member)) GROUP BY day`,
      )
      .safeIntegers(),
    recent: db.prepare(`SELECT l.request_id, l.created_at, l.key_id, k.name AS key_name, l.model, l.provider, l.prompt_tokens,
        l.completion_tokens, l.cost, l.byok, l.status, l.http_status, l.latency_ms
      FROM ledger l LEFT JOIN keys k ON k.id = l.key_id WHERE l.account = @account
        AND (@member IS NULL OR k.created_by = @member) ORDER BY l.created_at DESC, l.id DESC LIMIT @limit`),
  };

  const prune = writeTransaction(db, (before: number): PruneResult => {
    const rollups = s.rollup.run({ before }).changes;
    s.rollupTags.run({ before });
    const attempts = s.dropAttempts.run({ before }).changes;
    const rows = s.dropRows.run({ before }).changes;
    return { rows, attempts, rollups };
  });

  return {
    prune,
    oldestLedgerAt: () => (s.oldest.get() as number | null) ?? undefined,
    usage: ({ account, since, member }: UsageFilter): UsageRow[] =>
      (s.usage.all({ account: account ?? null, since: since ?? null, member: member ?? null }) as BigRow[]).map((r) => ({
        ...r,
        requests: Number(r.requests),
        promptTokens: Number(r.promptTokens),
        completionTokens: Number(r.completionTokens),
        cacheHits: Number(r.cacheHits),
        bounded: Number(r.bounded),
      })),
    dailySpend: async (account: string, since: number, member: string | null = null): Promise<DailySpend[]> => {
      const days = new Map<number, DailySpend>();
      const rows = [...s.ledgerDays.all({ account, since, member }), ...s.rollupDays.all({ account, since: since - (since % DAY_MS), member })] as Array<{
        day: bigint;
        cost: bigint;
        requests: bigint;
      }>;
      for (const r of rows) {
        const day = Number(r.day);
        const d = days.get(day) ?? { day, cost: 0n, requests: 0 };
        d.cost += r.cost;
        d.requests += Number(r.requests);
        days.set(day, d);
      }
      return [...days.values()].sort((a, b) => a.day - b.day);
    },
    recentRequests: async (account: string, limit: number, member: string | null = null): Promise<RecentRequest[]> =>
      (s.recent.all({ account, limit, member }) as RecentRow[]).map((r) => ({
        requestId: r.request_id,
        createdAt: r.created_at,
        keyId: r.key_id,
        keyName: r.key_name,
        model: r.model,
        provider: r.provider,
        promptTokens: r.prompt_tokens,
        completionTokens: r.completion_tokens,
        cost: r.cost,
        byok: r.byok === 1,
        status: r.status as RecentRequest["status"],
        httpStatus: r.http_status,
        latencyMs: r.latency_ms,
      })),
  };
}
