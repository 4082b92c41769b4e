/**
 * What a hold covers: the dearest endpoint the route may use (catalog/prices.ts: the served
 * endpoint is charged at its own prices, docs/routing.md); the list cost of usage at given prices,
 * per-call tool fees included.
 */
import type { Route, RoutedEndpoint } from "../catalog/catalog.js";
import { endpointPrices, toolCallPricesOf } from "../catalog/prices.js";
import type { ToolCalls, Usage } from "../core/chat-request.js";
import { costOf, type Prices } from "../core/money.js";

/** The worst case over the route's endpoints, part by part: what a hold must cover whichever serves. */
export function pricesOf(route: Route): Prices {
  if (!route.endpoints.some((e) => e.pricing)) return endpointPrices(route, null);
  const all = route.endpoints.map((e) => endpointPrices(route, e));
  const most = (f: (p: Prices) => number | null | undefined) => Math.max(...all.map((p) => f(p) ?? p.prompt));
  return { prompt: most((p) => p.prompt), completion: most((p) => p.completion), cacheRead: most((p) => p.cacheRead), cacheWrite: most((p) => p.cacheWrite) };
}

/** The list cost of reported usage: each cached part at its own price, each per-call tool fee at its own (docs/billing.md). */
export function usageCost(prices: Prices, u: Usage): number {
  return costOf(prices, u.prompt_tokens, u.completion_tokens, { read: u.prompt_tokens_details?.cached_tokens, write: u.cache_write_tokens }, u.tool_calls);
}

/** Model and tool names already told to have no per-call price: one line each per process, at most WARNED_MAX. */
const warned = new Set<string>();
const WARNED_MAX = 1000;

/**
 * The endpoint's prices with the per-call prices of the tools `calls` names (catalog/prices.ts
 * toolCallPricesOf). A tool with no price anywhere is billed 0, said once per model and tool.
 */
export function withCallPrices(route: Route, e: RoutedEndpoint | null, prices: Prices, calls: ToolCalls): Prices {
  const found = toolCallPricesOf(route, e, Object.keys(calls));
  const toolCalls: Record<string, number> = {};
  for (const [name, price] of Object.entries(found)) {
    if (price !== undefined) toolCalls[name] = price;
    else unpriced(route.model.id, name);
  }
  return { ...prices, toolCalls };
}

function unpriced(model: string, tool: string): void {
  const id = `${model}\n${tool}`;
  if (warned.has(id) || warned.size >= WARNED_MAX) return;
  warned.add(id);
  console.error(`[gateway] model '${model}' reported ${tool} calls, which have no price: billed 0 (set pricing.tool_calls.${tool}, docs/billing.md)`);
}
