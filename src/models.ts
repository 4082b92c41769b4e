/** GET /v1/models: the models this account can use now, with prices per 1M tokens. */
import type { Gateway } from "./gateway.js";
import { nanoToUsd } from "./money.js";
import type { CatalogModel, KeyRecord } from "./store/index.js";

export function modelEntry(m: CatalogModel) {
  return {
    id: m.id,
    object: "model" as const,
    created: m.created,
    owned_by: m.ownedBy,
    capabilities: { chat: true, completions: false, embeddings: false },
    // Unknown prices are left out rather than shown as free.
    ...(m.promptPrice !== null && m.completionPrice !== null ? { pricing: { prompt: nanoToUsd(m.promptPrice), completion: nanoToUsd(m.completionPrice) } } : {}),
    ...(m.contextLength ? { context_length: m.contextLength } : {}),
  };
}

export function listModels(gw: Gateway, key: KeyRecord) {
  const byok = gw.byok.forAccount(key.account);
  return { object: "list" as const, data: gw.catalog.list((plugin) => byok.get(plugin)).map(modelEntry) };
}
