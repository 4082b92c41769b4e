/**
 * Accounts as an operator sees them (`gateway accounts list`) and balance corrections
 * (`gateway credits adjust`): a signed credit_grants row of kind 'adjustment' with its reason,
 * so the grants still sum to balance + charged (retention's invariant) after a correction.
 */
import type Database from "better-sqlite3";
import { BalanceOverflowError, MAX_NANO } from "../../core/money.js";
import { AccountMissingError, NegativeBalanceError, type AccountSummary } from "../money.js";

export function sqliteAccounts(db: Database.Database) {
  const s = {
    // Spend = what was charged: ledger rows plus the daily rollups retention folded them into.
    list: db
      .prepare(
        `SELECT a.id, a.balance, a.created_at AS createdAt,
        (SELECT COUNT(*) FROM keys k WHERE k.account = a.id AND k.revoked_at IS NULL) AS keys,
        (SELECT COALESCE(SUM(cost), 0) FROM ledger l WHERE l.account = a.id)
          + (SELECT COALESCE(SUM(cost), 0) FROM usage_daily u WHERE u.account = a.id) AS spend
      FROM accounts a ORDER BY a.id`,
      )
      .safeIntegers(),
    balance: db.prepare("SELECT balance FROM accounts WHERE id = ?").pluck().safeIntegers(),
    credit: db.prepare("UPDATE accounts SET balance = balance + ? WHERE id = ? RETURNING balance").pluck().safeIntegers(),
    adjustment: db.prepare("INSERT INTO credit_grants (account, amount, created_at, kind, reason) VALUES (?, ?, ?, 'adjustment', ?)"),
  };

  return {
    accounts: (): AccountSummary[] =>
      (s.list.all() as Array<{ id: string; balance: bigint; createdAt: bigint; keys: bigint; spend: bigint }>).map((r) => ({
        id: r.id,
        balance: r.balance,
        createdAt: Number(r.createdAt),
        keys: Number(r.keys),
        spend: r.spend,
      })),
    /** Adds `delta` (signed nano-USD) with its reason; never below zero, never past MAX_NANO. */
    adjustCredits: db.transaction((account: string, delta: bigint, reason: string, at: number): bigint => {
      const balance = s.balance.get(account) as bigint | undefined;
      if (balance === undefined) throw new AccountMissingError(account);
      if (balance + delta < 0n) throw new NegativeBalanceError(account, balance, delta);
      if (balance + delta > MAX_NANO) throw new BalanceOverflowError(account);
      s.adjustment.run(account, delta, at, reason);
      return s.credit.get(delta, account) as bigint;
    }),
  };
}
