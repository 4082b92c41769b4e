/**
 * Prices the operator gave models beyond the catalog's own (docs/billing.md, "Model prices"):
 * `gateway models price` (origin `operator`) and `gateway models sync --prices <file|url>`
 * (origin `file`). Kept apart from the catalog table, which `models sync` replaces whole, so a
 * price outlives every later sync; applied on top of the catalog at each read (catalog/priced.ts).
 */

/** Who set a price: the operator by hand, or a community price list read by `models sync --prices`. */
export type PriceOrigin = "operator" | "file";

export interface ModelPrice {
  /** The catalog id (`vendor/model`). */
  id: string;
  origin: PriceOrigin;
  /** nano-USD per 1M tokens. */
  prompt: number;
  completion: number;
  /** nano-USD per 1M cached prompt tokens read / written; null: billed at the prompt price. */
  cacheRead: number | null;
  cacheWrite: number | null;
  /** The token limits the price list gives, for models whose provider listed none; null: unknown. */
  contextLength: number | null;
  maxOutput: number | null;
  /** `cli:<os user>` for an operator price; the file or URL (without its query) for a list's. */
  source: string;
  updatedAt: number;
}

export interface ModelPriceStore {
  /** Every stored price, by id then origin. */
  modelPrices(): Promise<ModelPrice[]>;
  /** Inserts or replaces each row (by id and origin) in one transaction. */
  setModelPrices(rows: ModelPrice[]): Promise<void>;
  /** False when there was no such row. */
  removeModelPrice(id: string, origin: PriceOrigin): Promise<boolean>;
}
