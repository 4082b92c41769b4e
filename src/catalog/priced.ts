/**
 * The catalog the gateway serves: the stored (or bundled) catalog, with the prices kept in
 * `model_prices` on top and the config's `models:` over all (docs/billing.md, "Model prices").
 * Precedence, highest first: config `models:` pricing > `gateway models price` > a price list
 * read by `gateway models sync --prices` > the bundled catalog. A model a provider lists that none
 * of them prices stays unpriced: served with an account's own key (BYOK) or by a key-less local
 * server, refused on the platform key (catalog.ts `route`, model-hint.ts says why).
 */
import { mergeCatalog } from "./catalog.js";
import type { CatalogModel, ModelPrice, Store } from "../store/index.js";

/** The catalog as `serve` routes it: stored (else `fallback`, the bundled one before any sync), stored prices, config on top. */
export async function readServedCatalog(store: Store, fallback: () => CatalogModel[], config: CatalogModel[]): Promise<CatalogModel[]> {
  const [stored, prices] = await Promise.all([store.catalog(), store.modelPrices()]);
  return servedCatalog(stored.length ? stored : fallback(), prices, config);
}

export function servedCatalog(base: CatalogModel[], prices: ModelPrice[], config: CatalogModel[]): CatalogModel[] {
  return mergeCatalog(withPrices(base, prices), config);
}

/**
 * Each model with its stored price, the operator's over a price list's; other models as they are.
 * A price list's model the catalog lacks (one its provider serves but does not list, such as
 * Anthropic's undated `claude-sonnet-4-5`) is added, served by the plugin its id names; only
 * prices for providers whose list ids are API ids are stored for such models (import-prices.ts).
 */
export function withPrices(models: CatalogModel[], prices: ModelPrice[]): CatalogModel[] {
  if (prices.length === 0) return models;
  const byId = new Map<string, Partial<Record<ModelPrice["origin"], ModelPrice>>>();
  for (const p of prices) byId.set(p.id, { ...byId.get(p.id), [p.origin]: p });
  const out = models.map((m) => {
    const p = byId.get(m.id);
    byId.delete(m.id);
    return p ? priced(m, (p.operator ?? p.file)!, p.file) : m;
  });
  for (const p of byId.values()) if (p.file) out.push(priced(listed(p.file), p.operator ?? p.file, p.file));
  // Ordinal order, as mergeCatalog's.
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A model only a price list names: its id's vendor is the plugin that serves it. */
function listed(p: ModelPrice): CatalogModel {
  const cut = p.id.indexOf("/");
  return {
    id: p.id,
    ownedBy: p.id.slice(0, cut),
    promptPrice: null,
    completionPrice: null,
    contextLength: null,
    maxOutput: null,
    endpoints: [{ provider: p.id.slice(0, cut), model: p.id.slice(cut + 1) }],
    source: "list",
    created: Math.floor(p.updatedAt / 1000),
  };
}

/** A price replaces the model's cache prices too: without its own, cached tokens bill at its prompt price (as config pricing). */
function priced(m: CatalogModel, p: ModelPrice, file: ModelPrice | undefined): CatalogModel {
  const { cacheReadPrice: _read, cacheWritePrice: _write, ...rest } = m;
  return {
    ...rest,
    promptPrice: p.prompt,
    completionPrice: p.completion,
    ...(p.cacheRead !== null && { cacheReadPrice: p.cacheRead }),
    ...(p.cacheWrite !== null && { cacheWritePrice: p.cacheWrite }),
    // What the provider (or the bundled data) says of the limits wins; a price list fills the gaps.
    contextLength: m.contextLength ?? file?.contextLength ?? null,
    maxOutput: m.maxOutput ?? file?.maxOutput ?? null,
    priceSource: p.origin,
  };
}
