/**
 * Account and member budgets (`gateway budgets set|remove|list`, the dashboard's Budgets section;
 * docs/limits.md "Budgets"): exact nano-USD in, decimal USD strings out. A member budget names
 * someone who is a member of the account, so a typo is refused rather than kept as a budget
 * that covers no key.
 */
import type { BudgetPeriod } from "../core/budget-periods.js";
import { invalidRequest, notFound } from "../core/errors.js";
import { nanoToUsd } from "../core/money.js";
import type { BudgetRecord, BudgetUse, Store } from "../store/index.js";
import { accountMustExist } from "./account-exists.js";
import { auditNote, type AuditActor } from "./audit-note.js";

/** A budget as the CLI (`--json`) and the dashboard show it. */
export interface BudgetView {
  account: string;
  member: string | null;
  level: "account" | "member";
  limit: string;
  period: BudgetPeriod;
  spent: string;
  /** The limit minus the period's spend and what open requests hold: what a new request could still reserve. */
  remaining: string;
}

const budgetView = (b: BudgetUse): BudgetView => {
  const left = b.amount - b.spent - BigInt(b.held);
  return {
    account: b.account,
    member: b.member,
    level: b.member === null ? "account" : "member",
    limit: nanoToUsd(b.amount),
    period: b.period,
    spent: nanoToUsd(b.spent),
    remaining: nanoToUsd(left > 0n ? left : 0n),
  };
};

async function memberMustExist(store: Store, account: string, member: string): Promise<void> {
  if ((await store.listMembers(account)).some((m) => m.email === member)) return;
  throw notFound(`'${member}' is not a member of account '${account}' (gateway members list --account ${account})`, "member_not_found");
}

/** The audit log's target of a budget (docs/audit.md): the account, or `account/member-email`. */
const budgetTarget = (account: string, member: string | null) => (member === null ? account : `${account}/${member}`);

/** The level's budget as the audit log records it: `{amount, period}` in decimal USD, or null. */
async function auditedBudget(store: Store, account: string, member: string | null, now: number) {
  const b = (await store.listBudgets(account, now)).find((x) => x.member === member);
  return b ? { amount: nanoToUsd(b.amount), period: b.period } : null;
}

export async function setBudget(store: Store, b: BudgetRecord, now: number, by: AuditActor) {
  if (b.amount < 0n) throw invalidRequest("amount: must not be negative", null, "amount");
  await accountMustExist(store, b.account);
  if (b.member !== null) await memberMustExist(store, b.account, b.member);
  const before = await auditedBudget(store, b.account, b.member, now);
  const after = { amount: nanoToUsd(b.amount), period: b.period };
  const note = auditNote(by, now, { action: "budget.set", account: b.account, target: budgetTarget(b.account, b.member), before, after });
  await store.audited(note).setBudget(b, now);
  const set = (await store.listBudgets(b.account, now)).find((x) => x.member === b.member)!;
  return budgetView(set);
}

export async function removeBudget(store: Store, account: string, member: string | null, now: number, by: AuditActor): Promise<void> {
  await accountMustExist(store, account);
  const before = await auditedBudget(store, account, member, now);
  const note = auditNote(by, now, { action: "budget.remove", account, target: budgetTarget(account, member), before, after: null });
  // No such budget: removeBudget answers false, and an audited call that answers false records nothing.
  if (!(await store.audited(note).removeBudget(account, member)))
    throw notFound(`account '${account}' has no ${member === null ? "budget of its own" : `budget for member '${member}'`}`, "budget_not_found");
}

export async function listBudgets(store: Store, account: string | undefined, now: number): Promise<BudgetView[]> {
  if (account !== undefined) await accountMustExist(store, account);
  return (await store.listBudgets(account, now)).map(budgetView);
}
