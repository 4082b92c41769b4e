/** An account's balance and credit history, who made each entry and why (`gateway credits show|history`, the dashboard's Credits page). */
import { nanoToUsd } from "../core/money.js";
import type { Store } from "../store/index.js";

export async function showCredits(store: Store, account: string, historyLimit = 0) {
  const balance = nanoToUsd((await store.balance(account)) ?? 0n);
  if (historyLimit === 0) return { account, balance };
  const history = (await store.creditHistory(account, historyLimit)).map((c) => ({
    amount: nanoToUsd(c.amount),
    kind: c.kind,
    reason: c.reason,
    by: c.actor,
    created_at: new Date(c.createdAt).toISOString(),
  }));
  return { account, balance, history };
}
