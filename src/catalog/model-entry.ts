/**
 * A catalog model as GET /v1/models lists it (docs/http.md): id, owner, capabilities, and its
 * prices per 1M tokens and context length where known. The models endpoint and the dashboard's
 * model list both show it, so it lives below both.
 */
import { nanoToUsd } from "../core/money.js";
import type { CatalogModel } from "../store/index.js";
import { capabilitiesEntry } from "./model-kind.js";

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
