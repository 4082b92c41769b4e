/** Adding credits (`gateway credits add`, an admin's Add credits): exact nano-USD in, decimal USD out. */
import { invalidRequest } from "../core/errors.js";
import { nanoToUsd } from "../core/money.js";
import type { Store } from "../store/index.js";
import { accountMustExist } from "./account-exists.js";

/** `actor`: who adds (`cli:<os user>`, the dashboard user's email), kept with the grant for `credits history`. */
export async function addCredits(store: Store, account: string, amount: bigint, opts: { create: boolean; actor: string }, now: number) {
  if (amount <= 0n) throw invalidRequest("amount: must be greater than zero", null, "amount");
  if (!opts.create) await accountMustExist(store, account, true);
  const balance = await store.addCredits(account, amount, now, opts.actor);
  return { account, added: nanoToUsd(amount), balance: nanoToUsd(balance) };
}
