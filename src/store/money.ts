/**
 * Accounts and their money: balances and credit grants, holds of requests in flight against the
 * balance and the key's budget, and the settlement that charges a request and records it.
 * Balances and sums are BigInt nano-USD (exact up to a 64-bit INTEGER); one request's cost is
 * a number (below 2^53, see core/money.ts).
 */
import type { BudgetHold, BudgetScope } from "../core/budget-periods.js";
import { nanoToUsd } from "../core/money.js";
import type { Attempt, LedgerEntry } from "./ledger.js";

/** `gateway accounts list`: balance, active keys and what was charged (ledger + rollups), exact. */
export interface AccountSummary {
  id: string;
  balance: bigint;
  createdAt: number;
  keys: number;
  spend: bigint;
}

/** A credit grant or correction (`credits add|adjust`), newest first. */
export interface CreditEntry {
  amount: bigint;
  kind: "grant" | "adjustment";
  reason: string | null;
  /** Who made it (`cli:<os user>`, a dashboard user's email); null for rows from before it was recorded. */
  actor: string | null;
  createdAt: number;
}

export class AccountMissingError extends Error {
  constructor(account: string) {
    super(`account '${account}' does not exist`);
    this.name = "AccountMissingError";
  }
}

export class NegativeBalanceError extends RangeError {
  constructor(account: string, balance: bigint, delta: bigint) {
    super(`refused: the balance of '${account}' is ${nanoToUsd(balance)} USD; adjusting by ${nanoToUsd(delta)} would take it below zero`);
    this.name = "NegativeBalanceError";
  }
}

export interface MoneyStore {
  ensureAccount(id: string, at: number): Promise<void>;
  /** Exact at any size (BigInt nano-USD); undefined for an account that does not exist. */
  balance(account: string): Promise<bigint | undefined>;
  /** Adds `amount` nano-USD and returns the new balance; throws BalanceOverflowError past MAX_NANO. */
  addCredits(account: string, amount: bigint | number, at: number, actor?: string): Promise<bigint>;
  /** Every account, by id. */
  accounts(): Promise<AccountSummary[]>;
  /**
   * Corrects a balance by a signed amount with a reason (a credit_grants row of kind
   * 'adjustment'); throws for an unknown account, a result below zero or past MAX_NANO.
   */
  adjustCredits(account: string, delta: bigint, reason: string, at: number, actor?: string): Promise<bigint>;
  creditHistory(account: string, limit: number): Promise<CreditEntry[]>;
  /**
   * Holds `amount` of the balance for a request, and of the key's budget when given, and, with
   * a `scope`, of the account's budget and the budget of the member who created the key (each
   * where one is set), in one atomic step; false when the balance minus holds is short, or any
   * budget minus its period's spend and holds. A hold lives until its settlement; a networked
   * store leases it to this process, which renews it, so a killed process's holds expire
   * (docs/fleet.md). Without a scope (internal probes) account and member budgets are not held.
   */
  reserve(id: string, account: string, amount: number, budget?: BudgetHold, scope?: BudgetScope): Promise<boolean>;
  /**
   * Charges `entry.cost` in full where it can, records the request and drops its hold; resolves
   * once committed (settlements arriving together may share one transaction). Beyond its own
   * hold a charge takes only what other requests do not hold, of the balance and of the key's
   * budget and of the account's and member's budgets; the rest is recorded as `uncollected`. So none ever goes below zero.
   */
  settle(reservationId: string | null, entry: LedgerEntry, attempts: Attempt[]): Promise<void>;
  /** Drops a hold without a charge or a ledger row (a request moving on to a fallback model, docs/routing.md). */
  release(reservationId: string): Promise<void>;
  /** A key's spend in the period that starts at `since` (ms; 0 = ever) and the nano-USD its open requests hold. */
  keyBudgetUse(keyId: string, since: number): Promise<{ spent: bigint; held: number }>;
}
