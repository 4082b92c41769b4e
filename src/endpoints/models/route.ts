/**
 * GET /v1/models: the models this account can use now, with prices per 1M tokens, and the
 * config's aliases among them (`alias_of`); GET /v1/models/{id}: one of those entries.
 */
import { modelNotFound } from "../../core/errors.js";
import type { Gateway } from "../../gateway.js";
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

export async function listModels(gw: Gateway, key: KeyRecord) {
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

export async function getModel(gw: Gateway, key: KeyRecord, id: string) {
  const entry = (await listModels(gw, key)).data.find((m) => m.id === id);
  if (!entry) throw modelNotFound(id);
  return entry;
}
