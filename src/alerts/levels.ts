/**
 * The budget levels a request's settlement may have moved, read after it settled (docs/alerts.md).
 * Key budgets today; account and member budgets join as one more reader in `budgetLevels`.
 */
import { periodStart, type BudgetPeriod } from "../core/budget.js";
import type { KeyRecord, Store } from "../store/index.js";

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

/** Every budget level a request of this key counts against, as it stands now. */
export async function budgetLevels(store: Store, keyId: string, now: number): Promise<BudgetLevel[]> {
  const key = await store.findKey(keyId);
  if (!key) return [];
  const levels = [await keyLevel(store, key, now)];
  return levels.filter((l): l is BudgetLevel => l !== undefined);
}

/** Every budget level of an account as it stands now (the dashboard's banner): its keys' budgets today. */
export async function accountLevels(store: Store, account: string, now: number): Promise<BudgetLevel[]> {
  const keys = (await store.listKeys(account)).filter((k) => k.revokedAt === null && k.budget != null);
  const levels = await Promise.all(keys.map((k) => keyLevel(store, k, now)));
  return levels.filter((l): l is BudgetLevel => l !== undefined);
}
