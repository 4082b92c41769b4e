/**
 * What the dashboard's usage and credits pages read on SQLite: spend per UTC day (ledger rows
 * and the daily rollups retention folded older rows into), the latest requests, and the
 * credit history. Sums are read as BigInt: exact past 2^53 nano-USD.
 */
import type Database from "better-sqlite3";
import type { CreditEntry, DailySpend, RecentRequest } from "../index.js";

const DAY_MS = 86_400_000;

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

export function sqliteActivity(db: Database.Database) {
  const s = {
    ledgerDays: db
      .prepare(
        `SELECT (created_at / ${DAY_MS}) * ${DAY_MS} AS day, SUM(cost) AS cost, COUNT(*) AS requests
      FROM ledger WHERE account = ? AND created_at >= ? GROUP BY 1`,
      )
      .safeIntegers(),
    rollupDays: db
      .prepare(
        `SELECT day, SUM(cost) AS cost, SUM(requests) AS requests
      FROM usage_daily WHERE account = ? AND day >= ? GROUP BY day`,
      )
      .safeIntegers(),
    recent: db.prepare(`SELECT l.request_id, l.created_at, l.key_id, k.name AS key_name, l.model, l.provider, l.prompt_tokens,
        l.completion_tokens, l.cost, l.byok, l.status, l.http_status, l.latency_ms
      FROM ledger l LEFT JOIN keys k ON k.id = l.key_id WHERE l.account = ? ORDER BY l.created_at DESC, l.id DESC LIMIT ?`),
    credits: db
      .prepare(
        `SELECT amount, kind, reason, created_at FROM credit_grants WHERE account = ?
      ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .safeIntegers(),
  };
  return {
    dailySpend: async (account: string, since: number): Promise<DailySpend[]> => {
      const days = new Map<number, DailySpend>();
      const rows = [...s.ledgerDays.all(account, since), ...s.rollupDays.all(account, since - (since % DAY_MS))] as Array<{
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
    recentRequests: async (account: string, limit: number): Promise<RecentRequest[]> =>
      (s.recent.all(account, limit) as RecentRow[]).map((r) => ({
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
    creditHistory: async (account: string, limit: number): Promise<CreditEntry[]> =>
      (s.credits.all(account, limit) as Array<{ amount: bigint; kind: string; reason: string | null; created_at: bigint }>).map((r) => ({
        amount: r.amount,
        kind: r.kind === "adjustment" ? "adjustment" : "grant",
        reason: r.reason,
        createdAt: Number(r.created_at),
      })),
  };
}
