/**
 * The route stage with fallbacks and provider preferences (docs/routing.md): each model to try
 * (`model`, then the request's `models`, else the config's `fallbacks` of the model) to its
 * catalog endpoints this account can use, narrowed by the endpoint and by the provider
 * preferences, before any hold. A model that cannot serve is left out with a log record; when
 * none can, the request gets the first one's error (its 404 or 400).
 */
import { worstTokens } from "../billing/bill.js";
import { resolveAlias } from "../catalog/aliases.js";
import type { Route } from "../catalog/catalog.js";
import type { ChatRequest } from "../core/chat-request.js";
import { modelsToTry, routingOf } from "../core/routing-fields.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import type { KeyRecord } from "../store/index.js";
import { applyPreferences } from "../upstream/preferences.js";
import type { Endpoint, Parsed } from "./endpoint.js";

export async function routeModels<Req extends Parsed>(gw: Gateway, ex: Exchange, ep: Endpoint<Req, unknown>, key: KeyRecord, body: Req): Promise<Route[]> {
  const byok = await gw.byok.forAccount(key.account);
  const byokKey = (plugin: string) => byok.get(plugin);
  const fields = routingOf(body);
  const routeOne = (model: string): Route => {
    const resolved = resolveAlias(gw.config.aliases, model);
    const found = gw.catalog.find(resolved, byokKey, ep.vendor);
    if (!found) throw ep.missing(gw, resolved, byokKey, ep.vendor);
    const route = ep.route(found, body);
    const worst = "messages" in body ? worstTokens(body as unknown as ChatRequest, route) : { prompt: 1, completion: 0 };
    return applyPreferences(route, fields.provider, worst);
  };
  const fallbacks = gw.config.fallbacks;
  const models = modelsToTry(body.model, fields, (id) => fallbacks[id] ?? fallbacks[resolveAlias(gw.config.aliases, id)]);
  const routes: Route[] = [];
  let first: unknown;
  for (const model of models) {
    try {
      const route = routeOne(model);
      if (!routes.some((r) => r.model.id === route.model.id)) routes.push(route);
    } catch (err) {
      if (models.length === 1) throw err;
      first ??= err;
      skipped(gw, ex, model, err);
    }
  }
  if (!routes.length) throw first;
  return routes;
}

/** Longest model name and reason a record quotes: the request's text, so bounded (docs/observability.md, "Text from outside"). */
const QUOTED = 256;

/** A record of the model left out, its fields the client's text as JSON strings: never a line of its own (docs/observability.md). */
function skipped(gw: Gateway, ex: Exchange, model: string, err: unknown): void {
  const reason = err instanceof Error ? err.message : String(err);
  gw.obs.log.events.warn(
    { event: "fallback_skipped", req_id: ex.state.id, model: model.slice(0, QUOTED), reason: reason.slice(0, QUOTED) },
    "model left out of the fallbacks",
  );
}
