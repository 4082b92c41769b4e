/**
 * The ledger summed by model, key and endpoint (`gateway usage`, the dashboard's Usage page).
 * Reads per-request rows and the daily rollups retention left of older ones, so pruning
 * never changes a total.
 */
import { nanoToUsd } from "../core/money.js";
import type { Store, UsageFilter, UsageRow } from "../store/index.js";

/** `cost` is what was charged; `uncollected` what the balance or a key's budget could not cover (docs/billing.md). */
interface Totals {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: bigint;
  list_cost: bigint;
  uncollected: bigint;
  /** Requests answered from the response cache, and the list cost those saved (docs/cache.md). */
  cache_hits: number;
  cache_saved: bigint;
  /** Requests billed at a bound (docs/limits.md), and the per-call tool fees inside list_cost (docs/billing.md). */
  bounded: number;
  tool_cost: bigint;
}
type Group = Totals & Record<string, unknown>;

const zero = (): Totals => ({
  requests: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  cost: 0n,
  list_cost: 0n,
  uncollected: 0n,
  cache_hits: 0,
  cache_saved: 0n,
  bounded: 0,
  tool_cost: 0n,
});

function add(t: Totals, r: UsageRow): void {
  t.requests += r.requests;
  t.prompt_tokens += r.promptTokens;
  t.completion_tokens += r.completionTokens;
  t.cost += r.cost;
  t.list_cost += r.listCost;
  t.uncollected += r.uncollected;
  t.cache_hits += r.cacheHits;
  t.cache_saved += r.cacheSaved;
  t.bounded += r.bounded;
  t.tool_cost += r.toolCost;
}

function sumInto(map: Map<string, Group>, id: string, extra: Record<string, unknown>, r: UsageRow): void {
  const t = map.get(id) ?? { ...extra, ...zero() };
  add(t, r);
  map.set(id, t);
}

/** Money as exact decimal USD strings (docs/cli.md). */
const money = <T extends Totals>(t: T) => ({
  ...t,
  cost: nanoToUsd(t.cost),
  list_cost: nanoToUsd(t.list_cost),
  uncollected: nanoToUsd(t.uncollected),
  cache_saved: nanoToUsd(t.cache_saved),
  tool_cost: nanoToUsd(t.tool_cost),
});

export function summarize(rows: UsageRow[]) {
  const byModel = new Map<string, Group>();
  const byKey = new Map<string, Group>();
  const byEndpoint = new Map<string, Group>();
  const total = zero();
  for (const r of rows) {
    add(total, r);
    sumInto(byModel, r.model, { model: r.model }, r);
    sumInto(byKey, r.keyId, { key_id: r.keyId, name: r.keyName }, r);
    sumInto(byEndpoint, r.endpoint, { endpoint: r.endpoint }, r);
  }
  return {
    ...money(total),
    by_model: [...byModel.values()].map(money),
    by_key: [...byKey.values()].map(money),
    by_endpoint: [...byEndpoint.values()].map(money),
  };
}

export async function usageSummary(store: Store, filter: UsageFilter) {
  return summarize(await store.usage(filter));
}
