/**
 * A catalog model as a table row, the same on SQLite and PostgreSQL: prices and limits in their
 * own columns, the routing facts (endpoints, order, capabilities, cache and tool-call prices) as one JSON
 * column, so a new fact needs no migration.
 */
import type { CatalogModel } from "./index.js";

export interface CatalogRow {
  id: string;
  owned_by: string;
  prompt_price: number | null;
  completion_price: number | null;
  context_length: number | null;
  max_output: number | null;
  endpoints: string;
  source: CatalogModel["source"];
  created: number;
}

export function fromCatalogRow(r: CatalogRow): CatalogModel {
  // The endpoints column is a JSON blob of the routing facts: new facts need no migration.
  const routes = JSON.parse(r.endpoints) as Pick<
    CatalogModel,
    "endpoints" | "order" | "capabilities" | "cacheReadPrice" | "cacheWritePrice" | "toolCallPrices"
  >;
  return {
    id: r.id,
    ownedBy: r.owned_by,
    promptPrice: r.prompt_price,
    completionPrice: r.completion_price,
    contextLength: r.context_length,
    maxOutput: r.max_output,
    endpoints: routes.endpoints,
    order: routes.order,
    ...(routes.capabilities ? { capabilities: routes.capabilities } : {}),
    source: r.source,
    created: r.created,
    ...(typeof routes.cacheReadPrice === "number" ? { cacheReadPrice: routes.cacheReadPrice } : {}),
    ...(typeof routes.cacheWritePrice === "number" ? { cacheWritePrice: routes.cacheWritePrice } : {}),
    ...(routes.toolCallPrices ? { toolCallPrices: routes.toolCallPrices } : {}),
  };
}

export function toCatalogColumns(m: CatalogModel): CatalogRow {
  return {
    id: m.id,
    owned_by: m.ownedBy,
    prompt_price: m.promptPrice,
    completion_price: m.completionPrice,
    context_length: m.contextLength,
    max_output: m.maxOutput,
    source: m.source,
    created: m.created,
    endpoints: JSON.stringify({
      endpoints: m.endpoints,
      order: m.order,
      capabilities: m.capabilities,
      cacheReadPrice: m.cacheReadPrice,
      cacheWritePrice: m.cacheWritePrice,
      toolCallPrices: m.toolCallPrices,
    }),
  };
}
