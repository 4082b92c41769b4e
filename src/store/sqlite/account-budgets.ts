/**
 * Account and member budgets on SQLite (docs/limits.md "Budgets"). Each row keeps a spend
 * counter for one period (`spent` since `spent_since`), written in the settlement's
 * transaction; open requests hold against it in memory (../holds.ts), by row id. Setting a
 * budget counts the current period's spend from the ledger and the daily rollups.
 */
import type Database from "better-sqlite3";
import { writeTransaction } from "./tx.js";
import { periodStart, spentIn, type BudgetPeriod } from "../../core/budget-periods.js";
import type { BudgetRecord, BudgetUse } from "../account-budgets.js";
import type { Hold, Holds } from "../holds.js";

/** A budget row as admission and settlement read it. */
export interface LevelRow {
  id: number;
  member: string | null;
  amount: bigint;
  period: BudgetPeriod;
  spent: bigint;
  since: number;
}

interface RawRow {
  id: bigint;
  account: string;
  member: string | null;
  amount: bigint;
  period: BudgetPeriod;
  spent: bigint;
  since: bigint;
}

const COLUMNS = "id, account, member, amount, period, spent, spent_since AS since";
const row = (r: RawRow): LevelRow => ({ id: Number(r.id), member: r.member, amount: r.amount, period: r.period, spent: r.spent, since: Number(r.since) });

export function sqliteLevels(db: Database.Database, holds: Holds) {
  const s = {
    levels: db.prepare(`SELECT ${COLUMNS} FROM budgets WHERE account = ? AND (member IS NULL OR member = ?)`).safeIntegers(),
    creator: db.prepare("SELECT created_by FROM keys WHERE id = ?").pluck(),
    count: db.prepare(`UPDATE budgets SET spent = CASE WHEN spent_since = @start THEN spent + @charge WHEN spent_since < @start THEN @charge ELSE spent END,
      spent_since = MAX(spent_since, @start) WHERE id = @id`),
    find: db.prepare("SELECT id, period FROM budgets WHERE account = @account AND COALESCE(member, '') = COALESCE(@member, '')").safeIntegers(),
    insert: db
      .prepare("INSERT INTO budgets (account, member, amount, period) VALUES (@account, @member, @amount, @period) RETURNING id")
      .pluck()
      .safeIntegers(),
    update: db.prepare("UPDATE budgets SET amount = @amount, period = @period WHERE id = @id"),
    // What was charged since `start`: the whole account's, or only keys the member created.
    recount: db.prepare(`UPDATE budgets SET spent_since = @start,
      spent = COALESCE((SELECT SUM(cost) FROM ledger WHERE account = @account AND created_at >= @start
          AND (@member IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = @member))), 0)
        + COALESCE((SELECT SUM(cost) FROM usage_daily WHERE account = @account AND day >= @start
          AND (@member IS NULL OR key_id IN (SELECT id FROM keys WHERE created_by = @member))), 0)
      WHERE id = @id`),
    remove: db.prepare("DELETE FROM budgets WHERE account = @account AND COALESCE(member, '') = COALESCE(@member, '')"),
    list: db.prepare(`SELECT ${COLUMNS} FROM budgets WHERE @account IS NULL OR account = @account ORDER BY account, member IS NOT NULL, member`).safeIntegers(),
  };

  /** The account's budget and, for a key a member created, that member's: the rows a request of theirs holds against. */
  const levels = (account: string, member: string | null): LevelRow[] => (s.levels.all(account, member) as RawRow[]).map(row);

  return {
    levels,

    /** Whether every level has room for `amount` more at `at`, beyond its period's spend and open holds. */
    fits: (rows: LevelRow[], amount: number, at: number): boolean =>
      rows.every((l) => spentIn(l, periodStart(l.period, at)) + BigInt(holds.budget(l.id) + amount) <= l.amount),

    /**
     * Inside the settlement's transaction: the levels of the entry's key and what each leaves
     * for it (its own hold, and beyond it what the level has left after every other open hold),
     * counted in the period the request started in.
     */
    rooms(account: string, keyId: string, createdAt: number, own: Hold | undefined, released: Map<number, number>) {
      return levels(account, (s.creator.get(keyId) as string | null | undefined) ?? null).map((l) => {
        const start = periodStart(l.period, createdAt);
        const ownAmount = own?.budgets?.includes(l.id) ? own.amount : 0;
        const others = holds.budget(l.id) - ownAmount - (released.get(l.id) ?? 0);
        // A request of a period already over takes no more than its hold from the new one.
        const room = l.since > start ? BigInt(ownAmount) : l.amount - spentIn(l, start) - BigInt(others);
        return { id: l.id, start, room };
      });
    },

    count: (id: number, start: number, charge: bigint) => void s.count.run({ id, start, charge }),

    setBudget: writeTransaction(db, (b: BudgetRecord, at: number): void => {
      const key = { account: b.account, member: b.member };
      const found = s.find.get(key) as { id: bigint } | undefined;
      const id = found ? found.id : (s.insert.get({ ...key, amount: b.amount, period: b.period }) as bigint);
      if (found) s.update.run({ id, amount: b.amount, period: b.period });
      s.recount.run({ ...key, id, start: periodStart(b.period, at) });
    }),

    removeBudget: (account: string, member: string | null): boolean => s.remove.run({ account, member }).changes > 0,

    listBudgets: (account: string | undefined, at: number): BudgetUse[] =>
      (s.list.all({ account: account ?? null }) as RawRow[]).map((r) => {
        const l = row(r);
        return {
          account: r.account,
          member: l.member,
          amount: l.amount,
          period: l.period,
          spent: spentIn(l, periodStart(l.period, at)),
          held: holds.budget(l.id),
        };
      }),
  };
}
