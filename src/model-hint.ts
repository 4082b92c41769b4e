/**
 * The 404 for a model a request cannot use, saying why (contract.md §13): a catalog model
 * that no configured key can serve names the provider whose key is missing; a bare id with
 * a catalog match (`gpt-4o-mini`, what existing apps send) suggests the full id. Only on the
 * 404 path: a routed request never comes here.
 */
import type { Catalog } from "./catalog.js";
import { GatewayError, modelNotFound } from "./errors.js";

const notFound = (message: string) => new GatewayError(404, "not_found", "model_not_found", message, { param: "model" });

export function modelMissing(catalog: Catalog, requested: string): GatewayError {
  if (catalog.model(requested)) {
    const providers = catalog.keylessProviders(requested);
    if (providers.length === 0) return modelNotFound(requested);
    const names = providers.join(", ");
    return notFound(`The model '${requested}' is not available: the gateway has no key for provider ${names}. ` +
      `The operator sets one (gateway init, or providers.${providers[0]}.apiKey), or the account brings its own (gateway byok set).`);
  }
  if (requested.includes("/")) return modelNotFound(requested);
  const ids = catalog.idsNamed(requested).slice(0, 5);
  if (ids.length === 0) return modelNotFound(requested);
  const hint = ids.length === 1 ? `Did you mean '${ids[0]}'?` : `Did you mean one of ${ids.map((id) => `'${id}'`).join(", ")}?`;
  return notFound(`The model '${requested}' does not exist: model ids are vendor/model. ${hint} GET /v1/models lists the usable ids.`);
}
