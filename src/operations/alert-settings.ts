/**
 * An account's alert thresholds (`gateway alerts thresholds`, docs/alerts.md): the percentages of
 * each budget that alert (default 50, 80, 100) and the balance below which `balance.low` alerts
 * (none by default).
 */
import { DEFAULT_PERCENTS, parsePercents } from "../alerts/thresholds.js";
import { invalidRequest } from "../core/errors.js";
import { nanoToUsd, usdToNanoExact } from "../core/money.js";
import type { AlertSettings, Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";

const view = (account: string, s: Pick<AlertSettings, "percents" | "lowBalance"> | undefined) => ({
  account,
  percents: s?.percents ?? [...DEFAULT_PERCENTS],
  low_balance: s?.lowBalance == null ? null : nanoToUsd(s.lowBalance),
});

export async function showAlertSettings(store: Store, account: string) {
  return view(account, await store.alertSettings(account));
}

/** `percents` "50,80,100"; `lowBalance` a USD amount, or null to turn it off; either left out is unchanged. */
export async function setAlertSettings(store: Store, account: string, changes: { percents?: string; lowBalance?: string | null }, now: number, by: AuditActor) {
  const current = await store.alertSettings(account);
  let percents = current?.percents ?? [...DEFAULT_PERCENTS];
  if (changes.percents !== undefined) {
    const parsed = parsePercents(changes.percents);
    if (!parsed) throw invalidRequest("percent: whole percentages from 1 to 1000, comma-separated (e.g. 50,80,100), at most 10", null, "percent");
    percents = parsed;
  }
  let lowBalance = current?.lowBalance ?? null;
  if (changes.lowBalance !== undefined) lowBalance = changes.lowBalance === null ? null : lowBalanceOf(changes.lowBalance);
  await store.ensureAccount(account, now);
  const after = view(account, { percents, lowBalance });
  // The effective thresholds before and after (the defaults before any were set): docs/audit.md.
  const fields = (v: ReturnType<typeof view>) => ({ percents: v.percents, low_balance: v.low_balance });
  const note = auditNote(by, now, { action: "alert.thresholds", account, target: account, before: fields(view(account, current)), after: fields(after) });
  await store.audited(note).setAlertSettings({ account, percents, lowBalance, updatedAt: now });
  return after;
}

function lowBalanceOf(usd: string): bigint {
  try {
    return usdToNanoExact(usd);
  } catch {
    throw invalidRequest("low-balance: a USD amount such as 5 or 12.50", null, "low_balance");
  }
}
