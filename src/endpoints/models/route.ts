/**
 * GET /v1/models: the models this account can use now, with prices per 1M tokens, and the
 * config's aliases among them (`alias_of`); GET /v1/models/{id}: one of those entries (a bare id
 * answers its full one).
 */
import type { EndpointServices } from "../../pipeline/endpoint.js";
import { resolveAlias } from "../../catalog/aliases.js";
import { modelMissing } from "../../catalog/model-hint.js";
import { capabilitiesEntry } from "../../catalog/model-kind.js";
import { nanoToUsd } from "../../core/money.js";
import type { CatalogModel, KeyRecord } from "../../store/index.js";

export function modelEntry(m: CatalogModel) {
  return {
    id: m.id,
    object: "model" as const,
    created: m.created,
    owned_by: m.ownedBy,
    capabilities: capabilitiesEntry(m),
    // Unknown prices are left out rather than shown as free.
    ...(m.promptPrice !== null && m.completionPrice !== null
      ? { pricing: { prompt: nanoToUsd(m.promptPrice), completion: nanoToUsd(m.completionPrice) } }
      : {}),
    ...(m.contextLength ? { context_length: m.contextLength } : {}),
  };
}

export async function listModels(gw: EndpointServices, key: KeyRecord) {
  const byok = await gw.byok.forAccount(key.account);
  const models = gw.catalog.list((plugin) => byok.readable(plugin));
  const byId = new Map(models.map((m) => [m.id, m]));
  // An alias is listed only when its target is usable by this account.
  const aliases = Object.entries(gw.config.aliases).flatMap(([alias, target]) => {
    const m = byId.get(target);
    return m && !byId.has(alias) ? [{ ...modelEntry(m), id: alias, alias_of: target }] : [];
  });
  return { object: "list" as const, data: [...models.map(modelEntry), ...aliases] };
}

/** An entry of the list by its id or alias; a bare id answers its one `vendor/<id>` entry, as a request would route (Catalog.find). */
export async function getModel(gw: EndpointServices, key: KeyRecord, id: string) {
  const { data } = await listModels(gw, key);
  const entry = data.find((m) => m.id === id) ?? globEntry(gw, id, data) ?? (await bareEntry(gw, key, id, data));
  if (entry) return entry;
  // Why not, as a request for it would be told (an unpriced model, a missing key): catalog/model-hint.ts.
  const byok = await gw.byok.forAccount(key.account);
  throw modelMissing(gw.catalog, resolveAlias(gw.config.aliases, id), (plugin) => byok.readable(plugin));
}

/** A name a glob alias (`claude-*`) sends on: the target's entry under the name asked. */
function globEntry<E extends { id: string }>(gw: EndpointServices, id: string, data: E[]): E | undefined {
  const target = resolveAlias(gw.config.aliases, id);
  const entry = target === id ? undefined : data.find((m) => m.id === target);
  return entry && { ...entry, id, alias_of: target };
}

async function bareEntry<E extends { id: string }>(gw: EndpointServices, key: KeyRecord, id: string, data: E[]): Promise<E | undefined> {
  if (id.includes("/")) return undefined;
  const byok = await gw.byok.forAccount(key.account);
  const found = gw.catalog.find(id, (plugin) => byok.readable(plugin));
  return found && data.find((m) => m.id === found.model.id);
}
