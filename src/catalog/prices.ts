/**
 * What one endpoint of a route charges: its own `pricing` when the config gives it one, else
 * the model's (docs/routing.md). Billing charges the endpoint that served at these prices;
 * the router's `sort: price` and `max_price` read them too.
 */
import type { Prices } from "../core/money.js";
import type { Route, RoutedEndpoint } from "./catalog.js";

export function endpointPrices(route: Route, e: RoutedEndpoint | null): Prices {
  if (e?.pricing) return e.pricing;
  const m = route.model;
  return { prompt: m.promptPrice ?? 0, completion: m.completionPrice ?? 0, cacheRead: m.cacheReadPrice, cacheWrite: m.cacheWritePrice };
}
