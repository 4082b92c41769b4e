/**
 * The 404 for a model a request cannot use, saying why (docs/cli.md): a catalog model
 * that no configured key can serve names the provider whose key is missing; a bare id with
 * a catalog match (`gpt-4o-mini`, what existing apps send) suggests the full id. Only on the
 * 404 path: a routed request never comes here.
 */
import type { Catalog } from "./catalog.js";
import { GatewayError, modelNotFound } from "../core/errors.js";

const notFound = (message: string) => new GatewayError(404, "not_found", "model_not_found", message, { param: "model" });

/** `byokKey` as for Catalog.route: a bare id's matches this account can use come first. */
export function modelMissing(catalog: Catalog, requested: string, byokKey: (plugin: string) => string | undefined = () => undefined): GatewayError {
  if (catalog.model(requested)) {
    const providers = catalog.keylessProviders(requested);
    if (providers.length === 0) return modelNotFound(requested);
    const names = providers.join(", ");
    return notFound(
      `The model '${requested}' is not available: the gateway has no key for provider ${names}. ` +
        `The operator sets one (gateway init, or providers.${providers[0]}.apiKey), or the account brings its own (gateway byok set).`,
    );
  }
  if (requested.includes("/")) return modelNotFound(requested);
  const named = catalog.idsNamed(requested);
  // `gpt-4o-mini` is also `azure/gpt-4o-mini`: the one this account can reach is the one meant.
  const usable = named.filter((id) => catalog.route(id, byokKey) !== undefined);
  const ids = (usable.length ? usable : named).slice(0, 5);
  if (ids.length === 0) return modelNotFound(requested);
  const hint = ids.length === 1 ? `Did you mean '${ids[0]}'?` : `Did you mean one of ${ids.map((id) => `'${id}'`).join(", ")}?`;
  return notFound(`The model '${requested}' does not exist: model ids are vendor/model. ${hint} GET /v1/models lists the usable ids.`);
}
