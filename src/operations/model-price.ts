/**
 * `gateway models price <id> --prompt P --completion C [--cache-read R] [--cache-write W]` and
 * `--remove`: the operator's own price for a catalog model (docs/billing.md, "Model prices"),
 * stored apart from the catalog so it outlives every `models sync`, audited (`model.price`,
 * `model.price.remove`), and live in running servers at their next catalog read (within a
 * second: the store's change notice, src/store/watch.ts). Above a price list's and the bundled
 * price, below a config `models:` entry's pricing.
 */
import { nearMiss } from "../config/diagnostics.js";
import { notFound } from "../core/errors.js";
import { nanoToUsd } from "../core/money.js";
import type { CatalogModel, ModelPrice, Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";

/** nano-USD per 1M tokens; a null cache price bills those tokens at the prompt price. */
export type PriceInput = Pick<ModelPrice, "prompt" | "completion" | "cacheRead" | "cacheWrite">;

const usd = (nano: number | null) => (nano === null ? null : nanoToUsd(nano));

/** USD per 1M tokens as decimal strings, as `models list --json` shows prices. */
export const pricingView = (p: PriceInput) => ({
  prompt: usd(p.prompt),
  completion: usd(p.completion),
  cache_read: usd(p.cacheRead),
  cache_write: usd(p.cacheWrite),
});

/** The catalog model `id` names, else a 404 with the nearest ids (a bare `gpt-5.5` suggests `openai/gpt-5.5`). */
function catalogModel(catalog: CatalogModel[], id: string): CatalogModel {
  const found = catalog.find((m) => m.id === id);
  if (found) return found;
  const ids = catalog.map((m) => m.id);
  const bare = ids.filter((m) => m.slice(m.indexOf("/") + 1) === id);
  const near = bare.length ? bare.join("', '") : nearMiss(id, ids);
  const hint = near ? ` (did you mean '${near}'?)` : "; gateway models sync adds what your providers list";
  throw notFound(`'${id}' is not a model of the catalog${hint}`, "model_not_found");
}

export async function setModelPrice(store: Store, catalog: CatalogModel[], id: string, price: PriceInput, now: number, by: AuditActor) {
  catalogModel(catalog, id);
  const old = (await store.modelPrices()).find((p) => p.id === id && p.origin === "operator");
  const row: ModelPrice = { id, origin: "operator", ...price, contextLength: null, maxOutput: null, source: by.actor, updatedAt: now };
  const note = auditNote(by, now, { action: "model.price", account: null, target: id, before: old ? pricingView(old) : null, after: pricingView(row) });
  await store.audited(note).setModelPrices([row]);
  return { id, pricing: pricingView(row) };
}

export async function removeModelPrice(store: Store, id: string, now: number, by: AuditActor) {
  const old = (await store.modelPrices()).find((p) => p.id === id && p.origin === "operator");
  const note = auditNote(by, now, { action: "model.price.remove", account: null, target: id, before: old ? pricingView(old) : null, after: null });
  if (!old || !(await store.audited(note).removeModelPrice(id, "operator")))
    throw notFound(`'${id}' has no price set with gateway models price`, "price_not_found");
  return { id, removed: true };
}
