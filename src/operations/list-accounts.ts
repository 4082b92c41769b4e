/** Accounts with their balances (`gateway accounts list`, the dashboard's Accounts table for admins): exact USD strings. */
import { nanoToUsd } from "../core/money.js";
import type { Store } from "../store/index.js";

export async function listAccounts(store: Store) {
  return (await store.accounts()).map((a) => ({
    id: a.id,
    balance: nanoToUsd(a.balance),
    keys: a.keys,
    spend: nanoToUsd(a.spend),
    created_at: new Date(a.createdAt).toISOString(),
  }));
}
