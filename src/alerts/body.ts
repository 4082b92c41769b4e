/** An alert's webhook body (docs/alerts.md "The body"): money as decimal USD strings, times in ISO 8601 UTC. */
import type { BudgetPeriod } from "../core/budget-periods.js";
import { nanoToUsd } from "../core/money.js";
import type { AlertType } from "../store/index.js";

export interface AlertEvent {
  type: AlertType;
  account: string;
  level: "account" | "member" | "key";
  member?: string;
  key?: string;
  thresholdPercent?: number;
  /** nano-USD: the budget's limit, or the low-balance amount */
  limit: bigint;
  /** nano-USD spent in the period; null for balance.low */
  spent: bigint | null;
  /** nano-USD: what the budget has left (never below 0), or the balance */
  remaining: bigint;
  /** The budget's period; null for balance.low */
  period: BudgetPeriod | null;
  /** With the webhook, what makes the delivery once only (src/alerts/detect.ts). */
  eventKey: string;
  /** Set when a refused request, not spend, reached the threshold (100 %): the body's `reason`. */
  reason?: "refused";
}

export function alertBody(id: string, e: AlertEvent, createdAt: number): string {
  return JSON.stringify({
    id,
    type: e.type,
    account: e.account,
    level: e.level,
    ...(e.member !== undefined && { member: e.member }),
    ...(e.key !== undefined && { key: e.key }),
    ...(e.thresholdPercent !== undefined && { threshold_percent: e.thresholdPercent }),
    limit: nanoToUsd(e.limit),
    spent: e.spent === null ? null : nanoToUsd(e.spent),
    remaining: nanoToUsd(e.remaining),
    period: e.period,
    ...(e.reason !== undefined && { reason: e.reason }),
    created_at: new Date(createdAt).toISOString(),
  });
}
