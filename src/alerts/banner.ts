/**
 * What the dashboard's banner says for an account (docs/alerts.md "The banner"): each budget that
 * has reached one of the account's thresholds in its current period (the highest reached), and a
 * balance below the low-balance amount. Read live, so it shows with or without a webhook. A
 * `member` (`only` set to their email) sees the account's budget, their own and their own keys',
 * and no balance: the same as they may read elsewhere (src/access/permissions.ts).
 */
import { nanoToUsd } from "../core/money.js";
import type { Store } from "../store/index.js";
import { accountLevels } from "./levels.js";
import { crossedPercents, DEFAULT_PERCENTS } from "./thresholds.js";

export interface BannerAlert {
  type: "budget.threshold" | "balance.low";
  level: "account" | "member" | "key";
  member?: string;
  key?: string;
  threshold_percent?: number;
  limit: string;
  spent: string | null;
  remaining: string;
  period: string | null;
}

export async function bannerAlerts(store: Store, account: string, now: number, only?: string): Promise<BannerAlert[]> {
  const settings = await store.alertSettings(account);
  const percents = settings?.percents ?? DEFAULT_PERCENTS;
  const out: BannerAlert[] = [];
  for (const l of await accountLevels(store, account, now, only)) {
    const top = crossedPercents(l, percents).at(-1);
    if (top === undefined) continue;
    out.push({
      type: "budget.threshold",
      level: l.level,
      ...(l.member !== undefined && { member: l.member }),
      ...(l.key !== undefined && { key: l.key }),
      threshold_percent: top,
      limit: nanoToUsd(l.limit),
      spent: nanoToUsd(l.spent),
      remaining: nanoToUsd(l.limit > l.spent ? l.limit - l.spent : 0n),
      period: l.period,
    });
  }
  const low = only === undefined ? settings?.lowBalance : undefined;
  const balance = await store.balance(account);
  if (low != null && balance !== undefined && balance < low) {
    out.push({ type: "balance.low", level: "account", limit: nanoToUsd(low), spent: null, remaining: nanoToUsd(balance), period: null });
  }
  return out;
}
