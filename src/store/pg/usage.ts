/**
 * Usage, retention and the accounts listing on PostgreSQL: the same queries as SQLite
 * (sqlite-retention.ts, sqlite-accounts.ts). A prune folds old ledger rows into daily rollups
 * and deletes them in one transaction, so rollups always sum to the rows they replaced.
 */
import type pg from "pg";
import type { AccountSummary, PruneResult, UsageRow } from "../index.js";
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
}

export function pgUsage(pool: pg.Pool) {
  return {
    async usage({ account, since }: { account?: string; since?: number }): Promise<UsageRow[]> {
      const { rows } = await query<UsageDbRow>(
        pool,
        `SELECT u.model, u.key_id, k.name AS key_name, u.endpoint, SUM(u.requests) AS requests,
          SUM(u.prompt_tokens) AS prompt_tokens, SUM(u.completion_tokens) AS completion_tokens,
          SUM(u.cost) AS cost, SUM(u.list_cost) AS list_cost, SUM(u.uncollected) AS uncollected
        FROM (
          SELECT model, key_id, endpoint, COUNT(*) AS requests, SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
            SUM(cost) AS cost, SUM(list_cost) AS list_cost, SUM(uncollected) AS uncollected
          FROM ledger WHERE ($1::text IS NULL OR account = $1) AND ($2::bigint IS NULL OR created_at >= $2)
          GROUP BY model, key_id, endpoint
          UNION ALL
          SELECT model, key_id, endpoint, SUM(requests), SUM(prompt_tokens), SUM(completion_tokens), SUM(cost), SUM(list_cost), SUM(uncollected)
          FROM usage_daily WHERE ($1::text IS NULL OR account = $1) AND ($2::bigint IS NULL OR day >= $2)
          GROUP BY model, key_id, endpoint
        ) u LEFT JOIN keys k ON k.id = u.key_id
        GROUP BY u.model, u.key_id, k.name, u.endpoint ORDER BY u.model, u.key_id, u.endpoint`,
        [account ?? null, since ?? null],
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
      }));
    },
    prune: (before: number): Promise<PruneResult> =>
      transaction(pool, async (c) => {
        const rollups = await c.query(
          `INSERT INTO usage_daily AS d (day, account, key_id, model, byok, endpoint, requests, prompt_tokens, completion_tokens, cost, list_cost, uncollected)
          SELECT created_at - created_at % ${DAY_MS}, account, key_id, model, byok, endpoint, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens),
            SUM(cost), SUM(list_cost), SUM(uncollected)
          FROM ledger WHERE created_at < $1 GROUP BY 1, 2, 3, 4, 5, 6
          ON CONFLICT (day, account, key_id, model, byok, endpoint) DO UPDATE SET
            requests = d.requests + excluded.requests, prompt_tokens = d.prompt_tokens + excluded.prompt_tokens,
            completion_tokens = d.completion_tokens + excluded.completion_tokens, cost = d.cost + excluded.cost,
            list_cost = d.list_cost + excluded.list_cost, uncollected = d.uncollected + excluded.uncollected`,
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
    async accounts(): Promise<AccountSummary[]> {
      const { rows } = await query<{ id: string; balance: string; created_at: string; keys: string; spend: string }>(
        pool,
        `SELECT a.id, a.balance, a.created_at,
          (SELECT COUNT(*) FROM keys k WHERE k.account = a.id AND k.revoked_at IS NULL) AS keys,
          (SELECT COALESCE(SUM(cost), 0) FROM ledger l WHERE l.account = a.id) + (SELECT COALESCE(SUM(cost), 0) FROM usage_daily u WHERE u.account = a.id) AS spend
        FROM accounts a ORDER BY a.id`,
      );
      return rows.map((r) => ({ id: r.id, balance: BigInt(r.balance), createdAt: Number(r.created_at), keys: Number(r.keys), spend: BigInt(r.spend) }));
    },
  };
}
