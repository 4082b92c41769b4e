/**
 * Account and member budgets (docs/limits.md "Budgets"): a spending cap per period on an
 * account (on top of its balance) or on the keys one member created in it. Held and settled
 * with the balance in the same step as key budgets (money.ts reserve/settle); this is how they
 * are set, removed and listed. Amounts and spend are BigInt nano-USD.
 */
import type { BudgetPeriod } from "../core/budget-periods.js";

export interface BudgetRecord {
  account: string;
  /** The member's email for a member budget (all keys they created in the account); null: the account's. */
  member: string | null;
  /** nano-USD per period */
  amount: bigint;
  period: BudgetPeriod;
}

/** A budget with its use now: spend in the current period and what open requests hold. */
export interface BudgetUse extends BudgetRecord {
  spent: bigint;
  held: number;
}

export interface BudgetStore {
  /**
   * Sets (or replaces) the account's or a member's budget; its spend in the current period is
   * counted from the ledger and the daily rollups, so a budget set mid-month knows the month.
   */
  setBudget(budget: BudgetRecord, at: number): Promise<void>;
  /** Removes it; false when there was none. */
  removeBudget(account: string, member: string | null): Promise<boolean>;
  /** Every budget (of one account when given), the account's first, with its use in the period containing `at`. */
  listBudgets(account: string | undefined, at: number): Promise<BudgetUse[]>;
}
