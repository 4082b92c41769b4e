/**
 * The alert delivery log (`gateway alerts deliveries`, the dashboard's Alerts page; docs/alerts.md):
 * each delivery with what fired it, read from the body it carries (src/alerts/body.ts): the
 * budget's level and the threshold reached, or, for `balance.low`, the amount the balance fell below.
 */
import type { Delivery, Store } from "../store/index.js";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

interface Fired {
  level: string | null;
  threshold_percent: number | null;
  /** The budget's limit, or the low-balance amount (decimal USD). */
  limit: string | null;
}

/** The body is the gateway's own JSON; a row it cannot read shows nulls rather than failing the log. */
function firedBy(body: string): Fired {
  try {
    const b = JSON.parse(body) as { level?: unknown; threshold_percent?: unknown; limit?: unknown };
    return {
      level: typeof b.level === "string" ? b.level : null,
      threshold_percent: typeof b.threshold_percent === "number" ? b.threshold_percent : null,
      limit: typeof b.limit === "string" ? b.limit : null,
    };
  } catch {
    return { level: null, threshold_percent: null, limit: null };
  }
}

const deliveryView = (d: Delivery) => ({
  id: d.id,
  url: d.url,
  type: d.type,
  ...firedBy(d.body),
  account: d.account,
  status: d.status,
  attempts: d.attempts,
  last_status: d.lastStatus,
  created_at: iso(d.createdAt),
  delivered_at: iso(d.deliveredAt),
});

/** Newest first; one account's when given. */
export async function listDeliveries(store: Store, o: { account?: string; limit?: number } = {}) {
  return (await store.listDeliveries({ account: o.account, limit: o.limit ?? 100 })).map(deliveryView);
}

/** What fired a delivery in a few words: `key 80%`, `account 100%`, `balance < 5.00`. */
export function firedText(d: Fired & { type: string }): string {
  if (d.type === "balance.low") return `balance < ${d.limit ?? "?"}`;
  return `${d.level ?? "?"} ${d.threshold_percent ?? "?"}%`;
}
