/** Adding credits (`gateway credits add`, an admin's Add credits): exact nano-USD in, decimal USD out. */
import { invalidRequest } from "../core/errors.js";
import { nanoToUsd } from "../core/money.js";
import type { Store } from "../store/index.js";
import { accountMustExist } from "./account-exists.js";
import { auditNote, type AuditActor } from "./audit-note.js";

/** `by.actor`: who adds (`cli:<os user>`, the dashboard user's email), kept with the grant for `credits history` and in the audit log. */
export async function addCredits(store: Store, account: string, amount: bigint, opts: { create: boolean }, now: number, by: AuditActor) {
  if (amount <= 0n) throw invalidRequest("amount: must be greater than zero", null, "amount");
  if (!opts.create) await accountMustExist(store, account, true);
  const note = (balance: bigint) =>
    auditNote(by, now, {
      action: "credits.add",
      account,
      target: account,
      before: { balance: nanoToUsd(balance - amount) },
      after: { balance: nanoToUsd(balance), added: nanoToUsd(amount) },
    });
  const balance = await store.audited(note).addCredits(account, amount, now, by.actor);
  return { account, added: nanoToUsd(amount), balance: nanoToUsd(balance) };
}
