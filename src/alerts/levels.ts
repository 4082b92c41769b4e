/**
 * The budget levels a request's settlement may have moved, read after it settled (docs/alerts.md):
 * the account's budget, the budget of the member who created the key, and the key's own.
 */
import { periodStart, type BudgetPeriod } from "../core/budget-periods.js";
import type { BudgetUse, KeyRecord, Store } from "../store/index.js";

export interface BudgetLevel {
  level: "account" | "member" | "key";
  account: string;
  member?: string;
  key?: string;
  /** nano-USD */
  limit: bigint;
  /** nano-USD spent in the period that starts at periodStart */
  spent: bigint;
  period: BudgetPeriod;
  periodStart: number;
}

/** A key's budget as a level; none for a key without one. */
async function keyLevel(store: Store, key: KeyRecord, now: number): Promise<BudgetLevel | undefined> {
  if (key.budget === null || key.budget === undefined) return undefined;
  const period = key.budgetPeriod ?? "total";
  const since = periodStart(period, now);
  const use = await store.keyBudgetUse(key.id, since);
  return { level: "key", account: key.account, key: key.id, limit: key.budget, spent: use.spent, period, periodStart: since };
}

/**
 * An account or member budget as a level. Its spend is what settled in the period (open holds are
 * not spend: a threshold is crossed by money charged, not by money reserved).
 */
const budgetLevel = (b: BudgetUse, now: number): BudgetLevel => ({
  level: b.member === null ? "account" : "member",
  account: b.account,
  ...(b.member !== null && { member: b.member }),
  limit: b.amount,
  spent: b.spent,
  period: b.period,
  periodStart: periodStart(b.period, now),
});

/** Every budget level a request of this key counts against, as it stands now: the account's, its creator's, its own. */
export async function budgetLevels(store: Store, keyId: string, now: number): Promise<BudgetLevel[]> {
  const key = await store.findKey(keyId);
  if (!key) return [];
  const creator = key.createdBy ?? null;
  const budgets = (await store.listBudgets(key.account, now)).filter((b) => b.member === null || b.member === creator);
  const levels = [...budgets.map((b) => budgetLevel(b, now)), await keyLevel(store, key, now)];
  return levels.filter((l): l is BudgetLevel => l !== undefined);
}

/**
 * Every budget level of an account as it stands now (the dashboard's banner): its own, its
 * members', its live keys'. With `member`, only what that member may see (docs/alerts.md "The
 * dashboard"): the account's budget, their own, and their own keys'.
 */
export async function accountLevels(store: Store, account: string, now: number, member?: string): Promise<BudgetLevel[]> {
  const mine = (b: BudgetUse) => member === undefined || b.member === null || b.member === member;
  const budgets = (await store.listBudgets(account, now)).filter(mine).map((b) => budgetLevel(b, now));
  const keys = (await store.listKeys(account)).filter((k) => k.revokedAt === null && k.budget != null && (member === undefined || k.createdBy === member));
  const levels = await Promise.all(keys.map((k) => keyLevel(store, k, now)));
  return [...budgets, ...levels.filter((l): l is BudgetLevel => l !== undefined)];
}
