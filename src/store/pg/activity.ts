/**
 * The dashboard's usage and credits reads on PostgreSQL: the same results as SQLite
 * (sqlite-activity.ts): spend per UTC day from ledger rows and daily rollups, the latest
 * requests, the credit history. bigint sums arrive as strings and stay exact.
 */
import type pg from "pg";
import type { CreditEntry, DailySpend, RecentRequest } from "../index.js";
import { query } from "./db.js";

const DAY_MS = 86_400_000;

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

export function pgActivity(pool: pg.Pool) {
  return {
    async dailySpend(account: string, since: number): Promise<DailySpend[]> {
      const { rows } = await query<{ day: string; cost: string; requests: string }>(
        pool,
        `SELECT day, SUM(cost) AS cost, SUM(requests) AS requests FROM (
          SELECT created_at - created_at % ${DAY_MS} AS day, cost, 1 AS requests FROM ledger WHERE account = $1 AND created_at >= $2
          UNION ALL
          SELECT day, cost, requests FROM usage_daily WHERE account = $1 AND day >= $3
        ) d GROUP BY day ORDER BY day`,
        [account, since, since - (since % DAY_MS)],
      );
      return rows.map((r) => ({ day: Number(r.day), cost: BigInt(r.cost), requests: Number(r.requests) }));
    },
    async recentRequests(account: string, limit: number): Promise<RecentRequest[]> {
      const { rows } = await query<RecentRow>(
        pool,
        `SELECT l.request_id, l.created_at, l.key_id, k.name AS key_name, l.model, l.provider,
          l.prompt_tokens, l.completion_tokens, l.cost, l.byok, l.status, l.http_status, l.latency_ms
        FROM ledger l LEFT JOIN keys k ON k.id = l.key_id WHERE l.account = $1 ORDER BY l.created_at DESC, l.id DESC LIMIT $2`,
        [account, limit],
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
    async creditHistory(account: string, limit: number): Promise<CreditEntry[]> {
      const { rows } = await query<{ amount: string; kind: string; reason: string | null; created_at: string }>(
        pool,
        "SELECT amount, kind, reason, created_at FROM credit_grants WHERE account = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
        [account, limit],
      );
      return rows.map((r) => ({
        amount: BigInt(r.amount),
        kind: r.kind === "adjustment" ? "adjustment" : "grant",
        reason: r.reason,
        createdAt: Number(r.created_at),
      }));
    },
  };
}
