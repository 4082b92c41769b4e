/**
 * The 404 for a model a request cannot use, saying why and what fixes it (docs/cli.md, "What
 * serve tells the operator"): a model a provider lists but nobody priced names the three ways to
 * price it and BYOK; a catalog model that no configured key can serve names the provider whose key
 * is missing; a bare id with several catalog matches suggests the full ids. A bare id that names
 * one such model is explained as that model, never answered with a did-you-mean that would fail
 * the same way. Only on the 404 path: a routed request never comes here.
 */
import type { Catalog } from "./catalog.js";
import { GatewayError, modelNotFound } from "../core/errors.js";

const notFound = (message: string) => new GatewayError(404, "not_found", "model_not_found", message, { param: "model" });

type ByokKey = (plugin: string) => string | undefined;

/** `byokKey` as for Catalog.route; `vendor` the route's own (`anthropic` on /v1/messages), asked first for a bare id. */
export function modelMissing(catalog: Catalog, requested: string, byokKey: ByokKey = () => undefined, vendor?: string): GatewayError {
  const id = catalog.model(requested) ? requested : requested.includes("/") ? undefined : meant(catalog, requested, byokKey, vendor);
  const why = id === undefined ? undefined : reason(catalog, id, requested);
  if (why) return why;
  if (requested.includes("/") || catalog.model(requested)) return modelNotFound(requested);
  const named = catalog.idsNamed(requested);
  // `gpt-4o-mini` is also `azure/gpt-4o-mini`: the one this account can reach is the one meant.
  const usable = named.filter((n) => catalog.route(n, byokKey) !== undefined);
  const ids = (usable.length ? usable : named).slice(0, 5);
  if (ids.length === 0) return modelNotFound(requested);
  const hint = ids.length === 1 ? `Did you mean '${ids[0]}'?` : `Did you mean one of ${ids.map((n) => `'${n}'`).join(", ")}?`;
  return notFound(`The model '${requested}' does not exist: model ids are vendor/model. ${hint} GET /v1/models lists the usable ids.`);
}

/** The one catalog model a bare id means: the route vendor's, else the only one of that name, else the only unpriced one. */
function meant(catalog: Catalog, bare: string, byokKey: ByokKey, vendor: string | undefined): string | undefined {
  if (vendor !== undefined && catalog.model(`${vendor}/${bare}`)) return `${vendor}/${bare}`;
  const named = catalog.idsNamed(bare);
  if (named.length === 1) return named[0];
  const unpriced = named.filter((n) => catalog.unpricedProviders(n).length > 0 && catalog.route(n, byokKey) === undefined);
  return unpriced.length === 1 ? unpriced[0] : undefined;
}

/** Why this catalog model cannot serve, with the fix; undefined when neither reason applies. */
function reason(catalog: Catalog, id: string, requested: string): GatewayError | undefined {
  const named = requested === id ? `'${id}'` : `'${requested}' (${id})`;
  const unpriced = catalog.unpricedProviders(id);
  if (unpriced.length) {
    const by = unpriced.join(", ");
    return notFound(
      `The model ${named} is listed by provider ${by} but has no price, so the gateway does not serve it on its own key. ` +
        `The operator sets one: gateway models price ${id} --prompt <USD per 1M> --completion <USD per 1M>, a pricing block for it under models: ` +
        `in the config, or gateway models sync --prices <file|url>. Or the account brings its own ${by} key (gateway byok set).`,
    );
  }
  const keyless = catalog.keylessProviders(id);
  if (keyless.length === 0) return undefined;
  return notFound(
    `The model ${named} is not available: the gateway has no key for provider ${keyless.join(", ")}. ` +
      `The operator sets one (gateway init, or providers.${keyless[0]}.apiKey), or the account brings its own (gateway byok set).`,
  );
}

/**
 * A bare name no catalog model has, as coding agents send them (`claude-opus-5-5`, `gemini-3.5-flash-lite`):
 * the 404 says how to send it to another model (contract: docs/http.md, "Model names").
 */
export function withAliasHint(err: GatewayError, requested: string): GatewayError {
  if (requested.includes("/") || err.code !== "model_not_found") return err;
  const family = requested.split("-")[0];
  const glob = family && family !== requested ? `, or a glob such as "${family}-*"` : "";
  const hint = ` To serve it with another model, add a config alias (aliases: {"${requested}": vendor/model}${glob}).`;
  return new GatewayError(err.status, err.type, err.code, err.message + hint, { param: err.param, headers: err.headers });
}
