/** Operator and price-list prices on SQLite (store/model-prices.ts): one row per model and origin. */
import type Database from "better-sqlite3";
import type { ModelPrice, PriceOrigin } from "../model-prices.js";
import { writeTransaction } from "./tx.js";

export function sqliteModelPrices(db: Database.Database) {
  const s = {
    all: db.prepare(`SELECT id, origin, prompt, completion, cache_read AS cacheRead, cache_write AS cacheWrite, context_length AS contextLength,
      max_output AS maxOutput, source, updated_at AS updatedAt FROM model_prices ORDER BY id, origin`),
    upsert: db.prepare(`INSERT INTO model_prices (id, origin, prompt, completion, cache_read, cache_write, context_length, max_output, source, updated_at)
      VALUES (@id, @origin, @prompt, @completion, @cacheRead, @cacheWrite, @contextLength, @maxOutput, @source, @updatedAt)
      ON CONFLICT (id, origin) DO UPDATE SET prompt = excluded.prompt, completion = excluded.completion, cache_read = excluded.cache_read,
        cache_write = excluded.cache_write, context_length = excluded.context_length, max_output = excluded.max_output,
        source = excluded.source, updated_at = excluded.updated_at`),
    remove: db.prepare("DELETE FROM model_prices WHERE id = ? AND origin = ?"),
  };
  return {
    modelPrices: () => s.all.all() as ModelPrice[],
    setModelPrices: writeTransaction(db, (rows: ModelPrice[]) => {
      for (const r of rows) s.upsert.run(r);
    }),
    removeModelPrice: (id: string, origin: PriceOrigin) => s.remove.run(id, origin).changes > 0,
  };
}
