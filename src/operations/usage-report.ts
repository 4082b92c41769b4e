/**
 * The dashboard's Usage page in one read: spend per UTC day for the last 30 days (every day,
 * zero included, so the chart has no gaps), the same period by model and by key, and the
 * latest requests. Money as decimal USD strings.
 */
import { nanoToUsd } from "../core/money.js";
import type { Store } from "../store/index.js";
import { usageSummary } from "./usage-summary.js";

const DAY_MS = 86_400_000;
const USAGE_DAYS = 30;

/** `member`: only the keys that dashboard user created (a member's own usage, docs/dashboard.md). */
export async function usageReport(store: Store, account: string, now: number, recentLimit = 50, member?: string) {
  const today = now - (now % DAY_MS);
  const since = today - (USAGE_DAYS - 1) * DAY_MS;
  const spent = new Map((await store.dailySpend(account, since, member ?? null)).map((d) => [d.day, d]));
  const daily = Array.from({ length: USAGE_DAYS }, (_, i) => {
    const day = since + i * DAY_MS;
    const d = spent.get(day);
    return { day: new Date(day).toISOString().slice(0, 10), cost: nanoToUsd(d?.cost ?? 0n), requests: d?.requests ?? 0 };
  });
  const summary = await usageSummary(store, { account, since, ...(member === undefined ? {} : { member }) });
  const recent = (await store.recentRequests(account, recentLimit, member ?? null)).map((r) => ({
    request_id: r.requestId,
    created_at: new Date(r.createdAt).toISOString(),
    key_id: r.keyId,
    key_name: r.keyName,
    model: r.model,
    provider: r.provider,
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    cost: nanoToUsd(r.cost),
    byok: r.byok,
    status: r.httpStatus,
    latency_ms: r.latencyMs,
  }));
  return { account, since: new Date(since).toISOString(), ...summary, daily, recent };
}
