/**
 * Who may loosen a key's limits (docs/dashboard.md "Budgets and key limits"): once an owner, an
 * admin or the CLI set a member's key's budget, period, rpm or expiry, the member may tighten
 * them (a lower budget, a longer period for no more money, a lower rpm, an earlier expiry, one
 * where there was none) and never loosen them (remove, raise, or move to a shorter period).
 */
import { BUDGET_PERIODS } from "../core/budget-periods.js";
import { forbidden } from "../core/errors.js";
import type { KeyChanges, KeyRecord } from "../store/index.js";

/** `a` allows no more than `b`; null is no limit. */
const atMost = <T extends number | bigint>(a: T | null, b: T | null): boolean => b === null || (a !== null && a <= b);

/**
 * The same amount over a longer period allows less (`total` never refills), so a budget is no
 * looser when its amount is not higher and its period is not shorter.
 */
function budgetNoLooser(key: KeyRecord, changes: KeyChanges): boolean {
  const before = key.budget ?? null;
  if (before === null) return true;
  const after = changes.budget === undefined ? before : changes.budget;
  const rank = (p: KeyRecord["budgetPeriod"]) => BUDGET_PERIODS.indexOf(p ?? "total");
  return after !== null && after <= before && rank(changes.budgetPeriod ?? key.budgetPeriod) >= rank(key.budgetPeriod);
}

/** The limits `changes` would loosen on `key`, by their API names. */
function loosened(key: KeyRecord, changes: KeyChanges): string[] {
  const out: string[] = [];
  if ((changes.budget !== undefined || changes.budgetPeriod !== undefined) && !budgetNoLooser(key, changes)) out.push("budget");
  if (changes.rpm !== undefined && !atMost(changes.rpm, key.rpm)) out.push("rpm");
  if (changes.expiresAt !== undefined && !atMost(changes.expiresAt, key.expiresAt)) out.push("expiry");
  return out;
}

/** A 403 when the key's limits were set by a manager and `changes` loosen any of them. */
export function refuseLoosening(key: KeyRecord, changes: KeyChanges): void {
  if (!key.limitsByManager) return;
  const fields = loosened(key, changes);
  if (fields.length === 0) return;
  throw forbidden(
    `An owner or admin set this key's limits: you may lower them, but raising or removing its ${fields.join(", ")} needs the role 'owner' or 'admin' in this account.`,
    "forbidden",
  );
}

/** Whether `changes` touch a limit (so an edit by someone other than the key's creator marks it as a manager's). */
export const touchesLimits = (changes: KeyChanges): boolean =>
  changes.budget !== undefined || changes.budgetPeriod !== undefined || changes.rpm !== undefined || changes.expiresAt !== undefined;
