/**
 * Key budgets and what a settlement may collect, on SQLite. Each key row carries a spend
 * counter for one period (`spent` since `spent_since`), written in the settlement's
 * transaction: admission reads one row by primary key, never the ledger. Changing a key's
 * period recounts the counter from the ledger and the daily rollups (periods are whole UTC days).
 */
import type Database from "better-sqlite3";
import { writeTransaction } from "./tx.js";
import { periodStart, spentIn, type BudgetPeriod, type KeySpend } from "../../core/budget-periods.js";
import type { Hold, Holds } from "../holds.js";
import type { KeyChanges } from "../keys.js";
import type { LedgerEntry } from "../ledger.js";
import type { sqliteLevels } from "./account-budgets.js";

interface CounterRow {
  budget: bigint | null;
  period: BudgetPeriod;
  spent: bigint;
  since: bigint;
}

/** Holds released earlier in the same batch transaction (their rows are written, their holds not yet dropped). */
export class Released {
  readonly accounts = new Map<string, number>();
  readonly keys = new Map<string, number>();
  readonly budgets = new Map<number, number>();
  add(h: Hold | undefined): void {
    if (!h) return;
    this.accounts.set(h.account, (this.accounts.get(h.account) ?? 0) + h.amount);
    if (h.keyId) this.keys.set(h.keyId, (this.keys.get(h.keyId) ?? 0) + h.amount);
    for (const b of h.budgets ?? []) this.budgets.set(b, (this.budgets.get(b) ?? 0) + h.amount);
  }
}

export function sqliteBudget(db: Database.Database, holds: Holds, levels: ReturnType<typeof sqliteLevels>) {
  const s = {
    counter: db.prepare("SELECT budget, budget_period AS period, spent, spent_since AS since FROM keys WHERE id = ?").safeIntegers(),
    count: db.prepare(`UPDATE keys SET spent = CASE WHEN spent_since = @start THEN spent + @charge WHEN spent_since < @start THEN @charge ELSE spent END,
      spent_since = MAX(spent_since, @start) WHERE id = @keyId`),
    sumSince: db
      .prepare(
        `SELECT COALESCE((SELECT SUM(cost) FROM ledger WHERE key_id = @keyId AND created_at >= @start), 0)
        + COALESCE((SELECT SUM(cost) FROM usage_daily WHERE key_id = @keyId AND day >= @start), 0)`,
      )
      .pluck()
      .safeIntegers(),
    recount: db.prepare(`UPDATE keys SET spent_since = @start,
      spent = COALESCE((SELECT SUM(cost) FROM ledger WHERE key_id = @keyId AND created_at >= @start), 0)
        + COALESCE((SELECT SUM(cost) FROM usage_daily WHERE key_id = @keyId AND day >= @start), 0)
      WHERE id = @keyId`),
  };
  const counter = (keyId: string): (KeySpend & { budget: bigint | null; period: BudgetPeriod }) | undefined => {
    const r = s.counter.get(keyId) as CounterRow | undefined;
    return r && { budget: r.budget, period: r.period, spent: r.spent, since: Number(r.since) };
  };

  return {
    /**
     * The key's spend in the period starting at `since`. Only keys with a budget keep a counter
     * (a write per settlement is not paid by keys that need none); for the others, listings
     * (`keys list`, GET /v1/key) sum the ledger and rollups.
     */
    spent: (keyId: string, since: number): bigint => {
      const c = counter(keyId);
      if (!c) return 0n;
      return c.budget === null ? (s.sumSince.get({ keyId, start: since }) as bigint) : spentIn(c, since);
    },

    /**
     * Inside the settlement's transaction: what it takes, at most `entry.cost` (its own hold, and
     * beyond it what the balance, the key's budget and the account's and member's budgets have
     * left after every other open hold, docs/billing.md), counted in each budget's period the
     * request started in.
     */
    charge(entry: LedgerEntry, balance: bigint, own: Hold | undefined, released: Released): bigint {
      const ownAmount = own?.amount ?? 0;
      let room = balance - BigInt(holds.account(entry.account) - ownAmount - (released.accounts.get(entry.account) ?? 0));
      const c = counter(entry.keyId);
      const start = c ? periodStart(c.period, entry.createdAt) : 0;
      if (c && c.budget !== null) {
        const ownKey = own?.keyId === entry.keyId ? ownAmount : 0;
        const others = holds.key(entry.keyId) - ownKey - (released.keys.get(entry.keyId) ?? 0);
        // A request of a period already over takes no more than its hold from the new one.
        const keyRoom = c.since > start ? BigInt(ownKey) : c.budget - spentIn(c, start) - BigInt(others);
        if (keyRoom < room) room = keyRoom;
      }
      const rooms = levels.rooms(entry.account, entry.keyId, entry.createdAt, own, released.budgets);
      for (const l of rooms) if (l.room < room) room = l.room;
      const cost = BigInt(entry.cost);
      const charge = room <= 0n ? 0n : room < cost ? room : cost;
      if (charge > 0n) {
        if (c && c.budget !== null) s.count.run({ keyId: entry.keyId, start, charge });
        for (const l of rooms) levels.count(l.id, l.start, charge);
      }
      return charge;
    },

    update: writeTransaction(db, (id: string, changes: KeyChanges, at: number) => {
      const set: string[] = [];
      const values: Record<string, unknown> = { id };
      if (changes.budget !== undefined) (set.push("budget = @budget"), (values.budget = changes.budget));
      if (changes.budgetPeriod !== undefined) (set.push("budget_period = @budgetPeriod"), (values.budgetPeriod = changes.budgetPeriod));
      if (changes.rpm !== undefined) (set.push("rpm = @rpm"), (values.rpm = changes.rpm));
      if (changes.expiresAt !== undefined) (set.push("expires_at = @expiresAt"), (values.expiresAt = changes.expiresAt));
      if (changes.cache !== undefined) (set.push("cache = @cache"), (values.cache = changes.cache));
      if (changes.guardrails !== undefined) (set.push("guardrails = @guardrails"), (values.guardrails = changes.guardrails));
      if (changes.limitsByManager !== undefined) (set.push("limits_by_manager = @limitsByManager"), (values.limitsByManager = changes.limitsByManager ? 1 : 0));
      if (changes.mcp !== undefined) (set.push("mcp = @mcp"), (values.mcp = changes.mcp?.length ? JSON.stringify(changes.mcp) : null));
      if (set.length) db.prepare(`UPDATE keys SET ${set.join(", ")} WHERE id = @id`).run(values);
      const c = counter(id);
      // A key given a budget (or a new period) starts from what the ledger says it spent.
      if (c && (changes.budget !== undefined || changes.budgetPeriod !== undefined)) s.recount.run({ keyId: id, start: periodStart(c.period, at) });
    }),
  };
}
