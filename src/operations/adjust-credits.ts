/** Correcting a balance by a signed amount with a reason (`gateway credits adjust`), with its audit record. */
import { nanoToUsd } from "../core/money.js";
import type { Store } from "../store/index.js";
import { accountMustExist } from "./account-exists.js";
import { auditNote, type AuditActor } from "./audit-note.js";

export async function adjustCredits(store: Store, account: string, delta: bigint, reason: string, now: number, by: AuditActor) {
  await accountMustExist(store, account);
  const note = (balance: bigint) =>
    auditNote(by, now, {
      action: "credits.adjust",
      account,
      target: account,
      before: { balance: nanoToUsd(balance - delta) },
      after: { balance: nanoToUsd(balance), adjusted: nanoToUsd(delta), reason },
    });
  const balance = await store.audited(note).adjustCredits(account, delta, reason, now, by.actor);
  return { account, adjusted: nanoToUsd(delta), balance: nanoToUsd(balance), reason };
}
