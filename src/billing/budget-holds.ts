/**
 * Budgets applied to a request (docs/limits.md "Budgets"): the key's own (a hold the store takes
 * against the key row), and the account's and the key creator's, which the store finds itself
 * from the scope; and what each level has left, for the 402 and GET /v1/key.
 */
import { periodStart, type BudgetHold, type BudgetLevel, type BudgetPeriod, type BudgetScope } from "../core/budget-periods.js";
import type { KeyRecord, Store } from "../store/index.js";

/** The hold a request of this key takes against its budget; none for a key without one. */
export function budgetHold(key: KeyRecord, now: number): BudgetHold | undefined {
  if (key.budget === null || key.budget === undefined) return undefined;
  return { keyId: key.id, limit: key.budget, since: periodStart(key.budgetPeriod ?? "total", now) };
}

/** Where the account's and member's budgets apply: the key's account, its creator, now. */
export const budgetScope = (key: KeyRecord, now: number): BudgetScope => ({ member: key.createdBy ?? null, at: now });

/** What the key may still reserve now: its limit minus its spend in the period and its open holds, at least 0. */
async function budgetLeft(store: Store, hold: BudgetHold): Promise<bigint> {
  const use = await store.keyBudgetUse(hold.keyId, hold.since);
  return atLeastZero(hold.limit - use.spent - BigInt(use.held));
}

const atLeastZero = (n: bigint) => (n > 0n ? n : 0n);

/** One level's budget as a request of this key meets it (nano-USD). */
export interface LevelUse {
  level: BudgetLevel;
  limit: bigint;
  period: BudgetPeriod;
  spent: bigint;
  /** The limit minus the period's spend and open holds, at least 0: what a new request could still reserve. */
  left: bigint;
}

/** Every budget a request of this key must fit: the account's, its creator's, its own (those that are set). */
export async function levelsOf(store: Store, key: KeyRecord, now: number): Promise<LevelUse[]> {
  const out: LevelUse[] = [];
  for (const b of await store.listBudgets(key.account, now)) {
    if (b.member !== null && b.member !== (key.createdBy ?? null)) continue;
    const level = b.member === null ? "account" : "member";
    out.push({ level, limit: b.amount, period: b.period, spent: b.spent, left: atLeastZero(b.amount - b.spent - BigInt(b.held)) });
  }
  const hold = budgetHold(key, now);
  if (hold) {
    const use = await store.keyBudgetUse(key.id, hold.since);
    out.push({ level: "key", limit: hold.limit, period: key.budgetPeriod ?? "total", spent: use.spent, left: await budgetLeft(store, hold) });
  }
  return out;
}

/** The level with the least left (the first of account, member, key on a tie); undefined without any budget. */
export const tightest = (levels: LevelUse[]): LevelUse | undefined => levels.reduce<LevelUse | undefined>((t, l) => (!t || l.left < t.left ? l : t), undefined);
