/** Operator and price-list prices on PostgreSQL: a write sends the change notice in its transaction (watch.ts). */
import type pg from "pg";
import type { ModelPrice, PriceOrigin } from "../model-prices.js";
import { num, query, transaction } from "./db.js";
import { notify } from "./watch.js";

type Row = Record<
  "id" | "origin" | "prompt" | "completion" | "cache_read" | "cache_write" | "context_length" | "max_output" | "source" | "updated_at",
  string | null
>;

const toPrice = (r: Row): ModelPrice => ({
  id: r.id!,
  origin: r.origin as PriceOrigin,
  prompt: Number(r.prompt),
  completion: Number(r.completion),
  cacheRead: num(r.cache_read),
  cacheWrite: num(r.cache_write),
  contextLength: num(r.context_length),
  maxOutput: num(r.max_output),
  source: r.source!,
  updatedAt: Number(r.updated_at),
});

export function pgModelPrices(pool: pg.Pool) {
  return {
    modelPrices: async () => (await query<Row>(pool, "SELECT * FROM model_prices ORDER BY id, origin")).rows.map(toPrice),
    // One statement for a whole price list (a thousand rows or so), in the notice's transaction.
    setModelPrices: (rows: ModelPrice[]) =>
      transaction(pool, async (c) => {
        await c.query(
          `INSERT INTO model_prices (id, origin, prompt, completion, cache_read, cache_write, context_length, max_output, source, updated_at)
          SELECT id, origin, prompt, completion, "cacheRead", "cacheWrite", "contextLength", "maxOutput", source, "updatedAt"
          FROM jsonb_to_recordset($1::jsonb) AS r(id text, origin text, prompt bigint, completion bigint, "cacheRead" bigint, "cacheWrite" bigint,
            "contextLength" integer, "maxOutput" integer, source text, "updatedAt" bigint)
          ON CONFLICT (id, origin) DO UPDATE SET prompt = excluded.prompt, completion = excluded.completion, cache_read = excluded.cache_read,
            cache_write = excluded.cache_write, context_length = excluded.context_length, max_output = excluded.max_output,
            source = excluded.source, updated_at = excluded.updated_at`,
          [JSON.stringify(rows)],
        );
        await notify(c);
      }),
    removeModelPrice: (id: string, origin: PriceOrigin) =>
      transaction(pool, async (c) => {
        const r = await c.query("DELETE FROM model_prices WHERE id = $1 AND origin = $2", [id, origin]);
        await notify(c);
        return (r.rowCount ?? 0) > 0;
      }),
  };
}
