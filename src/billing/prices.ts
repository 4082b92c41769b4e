/**
 * What a hold covers: the dearest endpoint the route may use (catalog/prices.ts: the served
 * endpoint is charged at its own prices, docs/routing.md); the list cost of usage at given prices.
 */
import type { Route } from "../catalog/catalog.js";
import { endpointPrices } from "../catalog/prices.js";
import type { Usage } from "../core/chat-request.js";
import { costOf, type Prices } from "../core/money.js";

/** The worst case over the route's endpoints, part by part: what a hold must cover whichever serves. */
export function pricesOf(route: Route): Prices {
  if (!route.endpoints.some((e) => e.pricing)) return endpointPrices(route, null);
  const all = route.endpoints.map((e) => endpointPrices(route, e));
  const most = (f: (p: Prices) => number | null | undefined) => Math.max(...all.map((p) => f(p) ?? p.prompt));
  return { prompt: most((p) => p.prompt), completion: most((p) => p.completion), cacheRead: most((p) => p.cacheRead), cacheWrite: most((p) => p.cacheWrite) };
}

/** The list cost of reported usage: each cached part at its own price (docs/billing.md). */
export function usageCost(prices: Prices, u: Usage): number {
  return costOf(prices, u.prompt_tokens, u.completion_tokens, { read: u.prompt_tokens_details?.cached_tokens, write: u.cache_write_tokens });
}
