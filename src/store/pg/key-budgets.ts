/**
 * Key budgets on PostgreSQL: each key row carries a spend counter for one period (written by
 * gw_settle, migrations.ts); listings of keys without a budget, and a key given a budget or a new
 * period, count from the ledger and the daily rollups (periods are whole UTC days).
 */
import type pg from "pg";
import { periodStart, type BudgetPeriod } from "../../core/budget-periods.js";
import { query } from "./db.js";

/** What the ledger and the daily rollups say a key spent since `since` (ms). */
export async function sumSince(db: pg.Pool | pg.PoolClient, keyId: string, since: number): Promise<bigint> {
  const { rows } = await query<{ s: string }>(
    db,
    `SELECT COALESCE((SELECT SUM(cost) FROM ledger WHERE key_id = $1 AND created_at >= $2), 0)
      + COALESCE((SELECT SUM(cost) FROM usage_daily WHERE key_id = $1 AND day >= $2), 0) AS s`,
    [keyId, since],
  );
  return BigInt(rows[0]!.s);
}

/** A key given a budget (or a new period) starts from what the ledger says it spent in the period. */
export async function recount(c: pg.PoolClient, id: string, at: number): Promise<void> {
  const { rows } = await c.query<{ period: BudgetPeriod }>("SELECT budget_period AS period FROM keys WHERE id = $1 FOR UPDATE", [id]);
  if (!rows[0]) return;
  const start = periodStart(rows[0].period, at);
  await c.query("UPDATE keys SET spent_since = $2, spent = $3 WHERE id = $1", [id, start, await sumSince(c, id, start)]);
}
