/**
 * Provider preferences (docs/routing.md): a request's `provider: {...}` over the model's in the
 * config, field by field, except that a model's `binding` preferences are limits the request's
 * may only narrow (`mergePreferences`). `only`, `ignore` and `max_price` narrow the route before
 * any hold (a 400 naming the field when nothing is left); `order`, `sort` and `allow_fallbacks`
 * decide the order the router tries what is left (Router.order calls `preferredOrder`).
 */
import type { Route, RoutedEndpoint } from "../catalog/catalog.js";
import { endpointPrices } from "../catalog/prices.js";
import { noEndpointMatches } from "../core/errors.js";
import { costOf, usdToNano } from "../core/money.js";
import type { ModelPreferences, ProviderPreferences } from "../core/routing-fields.js";
import type { Health } from "./health.js";

/** The request's worst case in tokens, for `sort: price`. */
export interface WorstTokens {
  prompt: number;
  completion: number;
}

/** The route narrowed and ordered by the preferences that apply to it; the route itself when none do. */
export function applyPreferences(route: Route, asked: ProviderPreferences | undefined, worst: WorstTokens): Route {
  const prefs = mergePreferences(route.model.provider, asked);
  if (Object.keys(prefs).length === 0) return route;
  let endpoints = route.endpoints;
  if (prefs.only) {
    const only = new Set(prefs.only);
    endpoints = endpoints.filter((e) => only.has(e.provider));
    const within = route.model.provider?.binding && asked?.only ? " within the providers its config allows" : "";
    if (!endpoints.length) throw noEndpointMatches("provider.only", `none of ${(asked?.only ?? prefs.only).join(", ")} serves ${route.model.id}${within}`);
  }
  if (prefs.ignore) {
    const ignore = new Set(prefs.ignore);
    endpoints = endpoints.filter((e) => !ignore.has(e.provider));
    if (!endpoints.length) throw noEndpointMatches("provider.ignore", `every provider of ${route.model.id} is ignored`);
  }
  if (prefs.max_price) {
    const max = prefs.max_price;
    const within = (e: RoutedEndpoint) => {
      const p = endpointPrices(route, e);
      return (max.prompt === undefined || p.prompt <= usdToNano(max.prompt)) && (max.completion === undefined || p.completion <= usdToNano(max.completion));
    };
    endpoints = endpoints.filter(within);
    if (!endpoints.length) throw noEndpointMatches("provider.max_price", `no provider of ${route.model.id} is within this price`);
  }
  if (prefs.sort === "price") {
    const cost = (e: RoutedEndpoint) => costOf(endpointPrices(route, e), worst.prompt, worst.completion);
    endpoints = endpoints
      .map((e, i) => ({ e, i, c: cost(e) }))
      .sort((a, b) => a.c - b.c || a.i - b.i)
      .map((x) => x.e);
  }
  return { ...route, endpoints, preferences: prefs };
}

/**
 * The preferences that apply: the request's over the model's, field by field; when the model's
 * are `binding`, its `only` is intersected with the request's, its `ignore` joined to the
 * request's, and each `max_price` field is the lower of the two (docs/routing.md).
 */
function mergePreferences(model: ModelPreferences | undefined, asked: ProviderPreferences | undefined): ProviderPreferences {
  const { binding, ...own } = model ?? {};
  const prefs: ProviderPreferences = { ...own, ...asked };
  if (!binding || !asked) return prefs;
  if (own.only && asked.only) prefs.only = asked.only.filter((p) => own.only!.includes(p));
  if (own.ignore && asked.ignore) prefs.ignore = [...new Set([...own.ignore, ...asked.ignore])];
  if (own.max_price && asked.max_price)
    prefs.max_price = {
      ...lower(own.max_price.prompt, asked.max_price.prompt, "prompt"),
      ...lower(own.max_price.completion, asked.max_price.completion, "completion"),
    };
  return prefs;
}

type Usd = NonNullable<NonNullable<ProviderPreferences["max_price"]>["prompt"]>;

/** `{field: the lower of a and b}`, either alone when the other is absent; `{}` when both are. */
function lower(a: Usd | undefined, b: Usd | undefined, field: "prompt" | "completion"): Record<string, Usd> {
  const v = a === undefined ? b : b === undefined ? a : usdToNano(b) < usdToNano(a) ? b : a;
  return v === undefined ? {} : { [field]: v };
}

/**
 * The order to try `usable` in under the route's preferences: the endpoints `order` names
 * first, in its order; then by `sort` (price: already sorted by applyPreferences; latency and
 * throughput: the fastest observed answer first, upstream/health.ts); `allow_fallbacks: false`
 * keeps only the first.
 */
export function preferredOrder(prefs: ProviderPreferences, usable: RoutedEndpoint[], health: Health): RoutedEndpoint[] {
  const named = prefs.order ?? [];
  const rankOf = (e: RoutedEndpoint) => {
    const i = named.indexOf(e.provider);
    return i < 0 ? named.length : i;
  };
  const bySpeed = prefs.sort === "latency" || prefs.sort === "throughput";
  const speed = (e: RoutedEndpoint) => (bySpeed ? (health.latency(e.provider, e.model) ?? 0) : 0);
  const ordered = usable
    .map((e, i) => ({ e, i, r: rankOf(e), s: speed(e) }))
    .sort((a, b) => a.r - b.r || a.s - b.s || a.i - b.i)
    .map((x) => x.e);
  return prefs.allow_fallbacks === false ? ordered.slice(0, 1) : ordered;
}
