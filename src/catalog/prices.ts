/**
 * What one endpoint of a route charges: its own `pricing` when the config gives it one, else
 * the model's (docs/routing.md). Billing charges the endpoint that served at these prices;
 * the router's `sort: price` and `max_price` read them too.
 */
import type { Prices } from "../core/money.js";
import { toolCallPrices, type Route, type RoutedEndpoint } from "./catalog.js";

export function endpointPrices(route: Route, e: RoutedEndpoint | null): Prices {
  if (e?.pricing) return e.pricing;
  const m = route.model;
  return { prompt: m.promptPrice ?? 0, completion: m.completionPrice ?? 0, cacheRead: m.cacheReadPrice, cacheWrite: m.cacheWritePrice };
}

/**
 * What a call of each of `names` costs on the endpoint that served, nano-USD per 1,000 calls:
 * the endpoint's own `pricing.tool_calls`, else the model's (config or catalog), else the
 * provider's published price (its plugin's `describe.toolCallPrices`), name by name; undefined
 * where none has one (docs/billing.md). Asked only for an answer that reported calls.
 */
export function toolCallPricesOf(route: Route, e: RoutedEndpoint | null, names: readonly string[]): Record<string, number | undefined> {
  const listed = e?.instance.plugin.describe?.toolCallPrices?.(e.model);
  const published = listed ? toolCallPrices(listed) : undefined;
  const out: Record<string, number | undefined> = {};
  for (const name of names) out[name] = e?.pricing?.toolCalls?.[name] ?? route.model.toolCallPrices?.[name] ?? published?.[name];
  return out;
}
