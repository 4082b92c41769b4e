/**
 * A community price list, read for `gateway models sync --prices <file|url>` (docs/billing.md,
 * "Model prices"): LiteLLM's `model_prices_and_context_window.json` or models.dev's `api.json`,
 * told apart by their shape. Each entry is mapped to a catalog id `<plugin>/<model>` through the
 * provider names each built-in plugin declares (`describe.catalog.litellm` / `modelsDev`); only
 * chat models priced exactly to the nano-USD per 1M tokens count, and a list's zero price
 * (its way of saying "unknown" as often as "free") prices nothing.
 */
import type { ProviderPlugin } from "../plugin/contract.js";
import { litellmPrices } from "./price-litellm.js";
import { modelsDevPrices } from "./price-models-dev.js";
import { isObject, type ListedPrice } from "./price-units.js";

type PriceListFormat = "litellm" | "models.dev";

export interface PriceList {
  format: PriceListFormat;
  /** Entries in the list. */
  entries: number;
  /** Chat models of a provider the gateway has, exactly priced, by catalog id (the first entry of an id wins). */
  prices: ListedPrice[];
  /** The vendors whose list ids are their API's ids: a price for a model the catalog lacks adds it (catalog/priced.ts). */
  adds: string[];
}

/** Which list provider is which plugin: LiteLLM's `litellm_provider` names and models.dev's provider ids. */
export interface Vendors {
  litellm: Map<string, string>;
  modelsDev: Map<string, string>;
  adds: string[];
}

export function vendorsOf(plugins: readonly ProviderPlugin[]): Vendors {
  const litellm = new Map<string, string>();
  const modelsDev = new Map<string, string>();
  const adds = new Set<string>();
  for (const p of plugins) {
    const catalog = p.describe?.catalog;
    for (const name of catalog?.litellm ?? []) litellm.set(name, p.name);
    if (catalog?.modelsDev) modelsDev.set(catalog.modelsDev, p.name);
    if (catalog && catalog.priceListIds !== false) adds.add(p.name);
  }
  return { litellm, modelsDev, adds: [...adds] };
}

/** The list's prices, or an Error saying the JSON is neither format. */
export function readPriceList(json: unknown, vendors: Vendors): PriceList {
  const format = formatOf(json);
  if (!format) throw new Error("not a price list: expected LiteLLM's model_prices_and_context_window.json or models.dev's api.json");
  const list = json as Record<string, unknown>;
  const read = format === "litellm" ? litellmPrices(list, vendors.litellm) : modelsDevPrices(list, vendors.modelsDev);
  const seen = new Set<string>();
  const prices = read.prices.filter((p) => !seen.has(p.id) && seen.add(p.id));
  return { format, entries: read.entries, prices, adds: vendors.adds };
}

/** LiteLLM: entries carrying `litellm_provider`; models.dev: providers carrying a `models` map. */
function formatOf(json: unknown): PriceListFormat | undefined {
  if (!isObject(json)) return undefined;
  const values = Object.values(json).filter(isObject);
  if (values.some((v) => typeof v.litellm_provider === "string")) return "litellm";
  if (values.some((v) => isObject(v.models))) return "models.dev";
  return undefined;
}
