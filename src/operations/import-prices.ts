/**
 * The prices of a community list (`gateway models sync --prices`, catalog/price-list.ts) stored
 * as origin `file` in `model_prices` (docs/billing.md, "Model prices"): they price the catalog's
 * models, those a provider lists unpriced included, and keep applying after later syncs. A list
 * never lowers a price silently: where it is below what the model costs now (the bundled price or
 * an earlier list's), the model keeps its price and the report names it, unless `allowLower`.
 * One audited write (`model.prices.import`).
 */
import { isUnpriced } from "../catalog/catalog.js";
import type { PriceList } from "../catalog/price-list.js";
import type { ListedPrice } from "../catalog/price-units.js";
import { withPrices } from "../catalog/priced.js";
import type { CatalogModel, ModelPrice, Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";
import { pricingView } from "./model-price.js";

export interface PricesReport {
  /** The file, or the URL without its query. */
  source: string;
  format: PriceList["format"];
  /** Entries in the list, and how many are chat models of this gateway's providers, exactly priced. */
  entries: number;
  prices: number;
  /** Catalog models the list prices now; of them, added by it (the catalog lacked them), unpriced before, and priced differently before. */
  models: number;
  added: number;
  newly_priced: number;
  changed: number;
  /** Kept at their higher price (the list's is lower; `--allow-lower` takes it). */
  lower_kept: Array<{ id: string; pricing: ReturnType<typeof pricingView>; list: ReturnType<typeof pricingView> }>;
  /** Priced at the list's base tier: the list has a higher price above some prompt size. */
  tiered: string[];
  /** Catalog models whose `models price` or config pricing wins over the list's. */
  overridden: number;
}

export interface ImportOptions {
  source: string;
  allowLower: boolean;
  /** Ids whose price `models price` or config `models:` pricing sets. */
  priced: Set<string>;
  now: number;
  by: AuditActor;
}

/**
 * `base`: the catalog as stored by the sync this import belongs to (bundled and live models, no
 * stored prices). A price for a model the catalog lacks is stored only for a vendor whose list ids
 * are its API's ids (`list.adds`): it adds that model (catalog/priced.ts).
 */
export async function importPrices(store: Store, list: PriceList, base: CatalogModel[], o: ImportOptions): Promise<PricesReport> {
  const files = (await store.modelPrices()).filter((p) => p.origin === "file");
  const before = new Map(withPrices(base, files).map((m) => [m.id, m]));
  const report: PricesReport = {
    source: o.source,
    format: list.format,
    entries: list.entries,
    prices: list.prices.length,
    models: 0,
    added: 0,
    newly_priced: 0,
    changed: 0,
    lower_kept: [],
    tiered: [],
    overridden: 0,
  };
  const rows: ModelPrice[] = [];
  const adds = new Set(list.adds);
  for (const p of list.prices) {
    const m = before.get(p.id);
    if (!m && !adds.has(p.id.slice(0, p.id.indexOf("/")))) continue;
    if (m && lowers(p, m) && !o.allowLower) {
      report.lower_kept.push({ id: p.id, pricing: pricingView(priceOf(m)), list: pricingView(p) });
      continue;
    }
    const { tiered: _tiered, ...price } = p;
    rows.push({ ...price, origin: "file", source: o.source, updatedAt: o.now });
    count(report, p, m, o.priced);
  }
  if (rows.length === 0) return report;
  const { lower_kept, tiered, ...counts } = report;
  const after = { ...counts, lower_kept: lower_kept.length, tiered: tiered.length };
  await store.audited(auditNote(o.by, o.now, { action: "model.prices.import", account: null, target: o.source, before: null, after })).setModelPrices(rows);
  return report;
}

function count(report: PricesReport, p: ListedPrice, m: CatalogModel | undefined, priced: Set<string>): void {
  report.models++;
  if (!m) report.added++;
  else if (isUnpriced(m)) report.newly_priced++;
  else if (p.prompt !== m.promptPrice || p.completion !== m.completionPrice) report.changed++;
  if (p.tiered) report.tiered.push(p.id);
  if (priced.has(p.id)) report.overridden++;
}

const priceOf = (m: CatalogModel) => ({
  prompt: m.promptPrice!,
  completion: m.completionPrice!,
  cacheRead: m.cacheReadPrice ?? null,
  cacheWrite: m.cacheWritePrice ?? null,
});

/** Any part of the list's price below the model's current one (a cache price against its own, where both have one). */
function lowers(p: ListedPrice, m: CatalogModel): boolean {
  if (m.promptPrice === null || m.completionPrice === null) return false;
  const below = (list: number | null, now: number | null | undefined) => list !== null && typeof now === "number" && list < now;
  return p.prompt < m.promptPrice || p.completion < m.completionPrice || below(p.cacheRead, m.cacheReadPrice) || below(p.cacheWrite, m.cacheWritePrice);
}
