/** The alert delivery log (`gateway alerts deliveries`, the dashboard's Alerts page; docs/alerts.md). */
import type { Delivery, Store } from "../store/index.js";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const deliveryView = (d: Delivery) => ({
  id: d.id,
  url: d.url,
  type: d.type,
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
