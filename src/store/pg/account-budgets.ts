/**
 * Account and member budgets on PostgreSQL (docs/limits.md "Budgets"): set, removed and listed
 * here; held and settled by gw_reserve / gw_settle (budget-levels.ts, budget-settle.ts). Setting
 * one locks its row and counts the current period's spend from the ledger and the daily rollups.
 */
import type pg from "pg";
import { periodStart, spentIn, type BudgetPeriod } from "../../core/budget-periods.js";
import type { BudgetRecord, BudgetUse } from "../account-budgets.js";
import { query, transaction } from "./db.js";

const SAME = "account = $1 AND COALESCE(member, '') = COALESCE($2, '')";
// What was charged since $3: the whole account's, or only keys the member created.
const CHARGED = `COALESCE((SELECT SUM(cost) FROM ledger WHERE account = $1 AND created_at >= $3
    AND ($2::text IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = $2))), 0)
  + COALESCE((SELECT SUM(cost) FROM usage_daily WHERE account = $1 AND day >= $3
    AND ($2::text IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = $2))), 0)`;

interface Row {
  account: string;
  member: string | null;
  amount: string;
  period: BudgetPeriod;
  spent: string;
  since: string;
  held: string;
}

export function pgBudgets(pool: pg.Pool) {
  return {
    setBudget: (b: BudgetRecord, at: number) =>
      transaction(pool, async (c) => {
        const start = periodStart(b.period, at);
        const found = await c.query(`UPDATE budgets SET amount = $3, period = $4 WHERE ${SAME} RETURNING id`, [b.account, b.member, b.amount, b.period]);
        if (!found.rowCount)
          await c.query("INSERT INTO budgets (account, member, amount, period) VALUES ($1, $2, $3, $4)", [b.account, b.member, b.amount, b.period]);
        await c.query(`UPDATE budgets SET spent_since = $3, spent = ${CHARGED} WHERE ${SAME}`, [b.account, b.member, start]);
      }),

    async removeBudget(account: string, member: string | null): Promise<boolean> {
      const { rowCount } = await query(pool, `DELETE FROM budgets WHERE ${SAME}`, [account, member]);
      return (rowCount ?? 0) > 0;
    },

    async listBudgets(account: string | undefined, at: number): Promise<BudgetUse[]> {
      const { rows } = await query<Row>(
        pool,
        // Leased room is held by no request until one is admitted against it (docs/fleet.md, "Leases").
        `SELECT account, member, amount, period, spent, spent_since AS since,
           held - COALESCE((SELECT SUM(h.amount) FROM holds h WHERE h.id LIKE 'lease\\_%' AND b.id IN (h.account_budget, h.member_budget)), 0) AS held
         FROM budgets b WHERE $1::text IS NULL OR account = $1 ORDER BY account, member IS NOT NULL, member`,
        [account ?? null],
      );
      return rows.map((r) => ({
        account: r.account,
        member: r.member,
        amount: BigInt(r.amount),
        period: r.period,
        spent: spentIn({ spent: BigInt(r.spent), since: Number(r.since) }, periodStart(r.period, at)),
        held: Number(r.held),
      }));
    },
  };
}
