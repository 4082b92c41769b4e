/** A key's budget applied to a request: the hold it takes and the room left (core/budget.ts has the periods). */
import { periodStart, type BudgetHold } from "../core/budget.js";
import type { KeyRecord, Store } from "../store/index.js";

/** The hold a request of this key takes against its budget; none for a key without one. */
export function budgetHold(key: KeyRecord, now: number): BudgetHold | undefined {
  if (key.budget === null || key.budget === undefined) return undefined;
  return { keyId: key.id, limit: key.budget, since: periodStart(key.budgetPeriod ?? "total", now) };
}

/** What the key may still reserve now: its limit minus its spend in the period and its open holds, at least 0. */
export async function budgetLeft(store: Store, hold: BudgetHold): Promise<bigint> {
  const use = await store.keyBudgetUse(hold.keyId, hold.since);
  const left = hold.limit - use.spent - BigInt(use.held);
  return left > 0n ? left : 0n;
}
