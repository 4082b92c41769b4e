/**
 * Key budgets (docs/billing.md): a limit per key over a calendar period in UTC. A key's spend
 * in its period plus its open holds never exceed the limit; the store enforces it with the
 * same in-memory holds as balances. Pure arithmetic here, shared by every store
 * (billing/budget-holds.ts applies it to a key).
 */
export const BUDGET_PERIODS = ["day", "week", "month", "total"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

const DAY_MS = 86_400_000;

/**
 * The start (ms) of the period that contains `at`: UTC midnight; the Monday of an ISO week;
 * the first of the month; 0 for `total`. Periods are whole UTC days, so daily rollups
 * (retention) sum into them exactly.
 */
export function periodStart(period: BudgetPeriod, at: number): number {
  if (period === "total") return 0;
  const day = at - (((at % DAY_MS) + DAY_MS) % DAY_MS);
  if (period === "day") return day;
  if (period === "week") return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
  const d = new Date(day);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** What a store reserve() needs to hold against a key's budget as well as the balance. */
export interface BudgetHold {
  keyId: string;
  /** nano-USD */
  limit: bigint;
  /** periodStart(period, now) */
  since: number;
}

/** A key's spend as a store keeps it: a counter for the period that starts at `since`. */
export interface KeySpend {
  spent: bigint;
  since: number;
}

/** The counter's value for the period starting at `start`: a counter left from an earlier period is 0 now. */
export const spentIn = (c: KeySpend, start: number): bigint => (c.since >= start ? c.spent : 0n);

/** The three levels a budget may be set on (docs/limits.md "Budgets"): each admits a request only with room for its worst case. */
export const BUDGET_LEVELS = ["account", "member", "key"] as const;
export type BudgetLevel = (typeof BUDGET_LEVELS)[number];

/**
 * Where a request's account and member budgets apply: the dashboard user who created its key
 * (null: a key from the CLI, which only its account's budget covers) and the time that picks
 * each budget's period.
 */
export interface BudgetScope {
  member: string | null;
  at: number;
}

/** The start of each period at `at`, as the PostgreSQL functions take them ({"day": ms, ...}). */
export const periodStarts = (at: number): Record<BudgetPeriod, number> =>
  Object.fromEntries(BUDGET_PERIODS.map((p) => [p, periodStart(p, at)])) as Record<BudgetPeriod, number>;
