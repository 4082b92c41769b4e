/** Adding credits (`gateway credits add`, an admin's Add credits): exact nano-USD in, decimal USD out. */
import { invalidRequest, notFound } from "../core/errors.js";
import { nanoToUsd } from "../core/money.js";
import type { Store } from "../store/index.js";

/** `default` is implicit (the account `keys create` uses when none is named); others must exist, so a typo creates nothing. */
export async function accountMustExist(store: Store, account: string): Promise<void> {
  if (account === "default" || (await store.balance(account)) !== undefined) return;
  const known = (await store.accounts()).map((a) => a.id);
  throw notFound(
    `account '${account}' does not exist${known.length ? ` (accounts: ${known.join(", ")})` : ""}; check the name, or add --create to create it`,
    "account_not_found",
  );
}

export async function addCredits(store: Store, account: string, amount: bigint, opts: { create: boolean }, now: number) {
  if (amount <= 0n) throw invalidRequest("amount: must be greater than zero", null, "amount");
  if (!opts.create) await accountMustExist(store, account);
  const balance = await store.addCredits(account, amount, now);
  return { account, added: nanoToUsd(amount), balance: nanoToUsd(balance) };
}
