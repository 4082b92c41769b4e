/**
 * The ledger on PostgreSQL: usage, retention and the dashboard's activity, the same queries as
 * SQLite (sqlite/ledger.ts). A prune folds old ledger rows into daily rollups and deletes them
 * in one transaction, so rollups always sum to the rows they replaced. bigint sums arrive as
 * strings and stay exact.
 */
import type pg from "pg";
import type { DailySpend, PruneResult, RecentRequest, UsageFilter, UsageRow } from "../ledger.js";
import { query, transaction } from "./db.js";

const DAY_MS = 86_400_000;

interface UsageDbRow {
  model: string;
  key_id: string;
  key_name: string | null;
  endpoint: UsageRow["endpoint"];
  requests: string;
  prompt_tokens: string;
  completion_tokens: string;
  cost: string;
  list_cost: string;
  uncollected: string;
  cache_hits: string;
  cache_saved: string;
  bounded: string;
  tool_cost: string;
}

/** A row billed at a bound (docs/limits.md): it kept what was reported. */
const BOUNDED_ROW = "reported_prompt_tokens IS NOT NULL OR reported_tool_calls IS NOT NULL";

interface RecentRow {
  request_id: string;
  created_at: string;
  key_id: string;
  key_name: string | null;
  model: string;
  provider: string | null;
  prompt_tokens: string;
  completion_tokens: string;
  cost: string;
  byok: boolean;
  status: string;
  http_status: number;
  latency_ms: string;
}

export function pgLedger(pool: pg.Pool) {
  return {
    async usage({ account, since, member }: UsageFilter): Promise<UsageRow[]> {
      const { rows } = await query<UsageDbRow>(
        pool,
        `SELECT u.model, u.key_id, k.name AS key_name, u.endpoint, SUM(u.requests) AS requests,
          SUM(u.prompt_tokens) AS prompt_tokens, SUM(u.completion_tokens) AS completion_tokens,
          SUM(u.cost) AS cost, SUM(u.list_cost) AS list_cost, SUM(u.uncollected) AS uncollected,
          SUM(u.cache_hits) AS cache_hits, SUM(u.cache_saved) AS cache_saved, SUM(u.bounded) AS bounded, SUM(u.tool_cost) AS tool_cost
        FROM (
          SELECT model, key_id, endpoint, COUNT(*) AS requests, SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
            SUM(cost) AS cost, SUM(list_cost) AS list_cost, SUM(uncollected) AS uncollected,
            COUNT(*) FILTER (WHERE usage_source = 'cache_hit') AS cache_hits,
            COALESCE(SUM(list_cost) FILTER (WHERE usage_source = 'cache_hit'), 0) AS cache_saved,
            COUNT(*) FILTER (WHERE ${BOUNDED_ROW}) AS bounded, SUM(tool_cost) AS tool_cost
          FROM ledger WHERE ($1::text IS NULL OR account = $1) AND ($2::bigint IS NULL OR created_at >= $2) AND ($3::text IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = $3))
          GROUP BY model, key_id, endpoint
          UNION ALL
          SELECT model, key_id, endpoint, SUM(requests), SUM(prompt_tokens), SUM(completion_tokens), SUM(cost), SUM(list_cost), SUM(uncollected),
            SUM(cache_hits), SUM(cache_saved), SUM(bounded), SUM(tool_cost)
          FROM usage_daily WHERE ($1::text IS NULL OR account = $1) AND ($2::bigint IS NULL OR day >= $2) AND ($3::text IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = $3))
          GROUP BY model, key_id, endpoint
        ) u LEFT JOIN keys k ON k.id = u.key_id
        GROUP BY u.model, u.key_id, k.name, u.endpoint ORDER BY u.model, u.key_id, u.endpoint`,
        [account ?? null, since ?? null, member ?? null],
      );
      return rows.map((r) => ({
        model: r.model,
        keyId: r.key_id,
        keyName: r.key_name,
        endpoint: r.endpoint,
        requests: Number(r.requests),
        promptTokens: Number(r.prompt_tokens),
        completionTokens: Number(r.completion_tokens),
        cost: BigInt(r.cost),
        listCost: BigInt(r.list_cost),
        uncollected: BigInt(r.uncollected),
        cacheHits: Number(r.cache_hits),
        cacheSaved: BigInt(r.cache_saved),
        bounded: Number(r.bounded),
        toolCost: BigInt(r.tool_cost),
      }));
    },
    prune: (before: number): Promise<PruneResult> =>
      transaction(pool, async (c) => {
        const rollups = await c.query(
          `INSERT INTO usage_daily AS d (day, account, key_id, model, byok, endpoint, requests, prompt_tokens, completion_tokens, cost, list_cost, uncollected,
            cache_hits, cache_saved, bounded, tool_cost)
          SELECT created_at - created_at % ${DAY_MS}, account, key_id, model, byok, endpoint, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens),
            SUM(cost), SUM(list_cost), SUM(uncollected), COUNT(*) FILTER (WHERE usage_source = 'cache_hit'),
            COALESCE(SUM(list_cost) FILTER (WHERE usage_source = 'cache_hit'), 0), COUNT(*) FILTER (WHERE ${BOUNDED_ROW}), SUM(tool_cost)
          FROM ledger WHERE created_at < $1 GROUP BY 1, 2, 3, 4, 5, 6
          ON CONFLICT (day, account, key_id, model, byok, endpoint) DO UPDATE SET
            requests = d.requests + excluded.requests, prompt_tokens = d.prompt_tokens + excluded.prompt_tokens,
            completion_tokens = d.completion_tokens + excluded.completion_tokens, cost = d.cost + excluded.cost,
            list_cost = d.list_cost + excluded.list_cost, uncollected = d.uncollected + excluded.uncollected,
            cache_hits = d.cache_hits + excluded.cache_hits, cache_saved = d.cache_saved + excluded.cache_saved,
            bounded = d.bounded + excluded.bounded, tool_cost = d.tool_cost + excluded.tool_cost`,
          [before],
        );
        // Tags (docs/usage.md): one rollup row per day, account and tag pair of the rows going.
        await c.query(
          `INSERT INTO usage_daily_tags AS d (day, account, name, value, requests, prompt_tokens, completion_tokens, cost)
          SELECT l.created_at - l.created_at % ${DAY_MS}, l.account, t.key, t.value, COUNT(*), SUM(l.prompt_tokens), SUM(l.completion_tokens), SUM(l.cost)
          FROM ledger l CROSS JOIN jsonb_each_text(l.tags) t WHERE l.created_at < $1 AND jsonb_typeof(l.tags) = 'object' GROUP BY 1, 2, 3, 4
          ON CONFLICT (account, name, day, value) DO UPDATE SET
            requests = d.requests + excluded.requests, prompt_tokens = d.prompt_tokens + excluded.prompt_tokens,
            completion_tokens = d.completion_tokens + excluded.completion_tokens, cost = d.cost + excluded.cost`,
          [before],
        );
        const attempts = await c.query("DELETE FROM attempts WHERE request_id IN (SELECT request_id FROM ledger WHERE created_at < $1)", [before]);
        const rows = await c.query("DELETE FROM ledger WHERE created_at < $1", [before]);
        return { rows: rows.rowCount ?? 0, attempts: attempts.rowCount ?? 0, rollups: rollups.rowCount ?? 0 };
      }),
    async oldestLedgerAt(): Promise<number | undefined> {
      const { rows } = await query<{ t: string | null }>(pool, "SELECT MIN(created_at) AS t FROM ledger");
      return rows[0]?.t == null ? undefined : Number(rows[0].t);
    },
    async dailySpend(account: string, since: number, member: string | null = null): Promise<DailySpend[]> {
      const { rows } = await query<{ day: string; cost: string; requests: string }>(
        pool,
        `SELECT day, SUM(cost) AS cost, SUM(requests) AS requests FROM (
          SELECT created_at - created_at % ${DAY_MS} AS day, cost, 1 AS requests FROM ledger WHERE account = $1 AND created_at >= $2 AND ($4::text IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = $4))
          UNION ALL
          SELECT day, cost, requests FROM usage_daily WHERE account = $1 AND day >= $3 AND ($4::text IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = $4))
        ) d GROUP BY day ORDER BY day`,
        [account, since, since - (since % DAY_MS), member],
      );
      return rows.map((r) => ({ day: Number(r.day), cost: BigInt(r.cost), requests: Number(r.requests) }));
    },
    async recentRequests(account: string, limit: number, member: string | null = null): Promise<RecentRequest[]> {
      const { rows } = await query<RecentRow>(
        pool,
        `SELECT l.request_id, l.created_at, l.key_id, k.name AS key_name, l.model, l.provider,
          l.prompt_tokens, l.completion_tokens, l.cost, l.byok, l.status, l.http_status, l.latency_ms
        FROM ledger l LEFT JOIN keys k ON k.id = l.key_id WHERE l.account = $1
          AND ($3::text IS NULL OR k.created_by = $3) ORDER BY l.created_at DESC, l.id DESC LIMIT $2`,
        [account, limit, member],
      );
      return rows.map((r) => ({
        requestId: r.request_id,
        createdAt: Number(r.created_at),
        keyId: r.key_id,
        keyName: r.key_name,
        model: r.model,
        provider: r.provider,
        promptTokens: Number(r.prompt_tokens),
        completionTokens: Number(r.completion_tokens),
        cost: Number(r.cost),
        byok: r.byok,
        status: r.status as RecentRequest["status"],
        httpStatus: Number(r.http_status),
        latencyMs: Number(r.latency_ms),
      }));
    },
  };
}
