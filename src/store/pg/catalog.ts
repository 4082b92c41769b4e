/** The catalog on PostgreSQL: replaced whole in one transaction that sends the change notice (watch.ts). */
import type pg from "pg";
import type { CatalogModel } from "../catalog.js";
import { fromCatalogRow, toCatalogColumns, type CatalogRow } from "../catalog-row.js";
import { num, query, transaction } from "./db.js";
import { notify } from "./watch.js";

export function pgCatalog(pool: pg.Pool) {
  return {
    replaceCatalog: (models: CatalogModel[]) =>
      transaction(pool, async (c) => {
        await c.query("DELETE FROM catalog");
        for (const m of models) {
          const r = toCatalogColumns(m);
          await c.query(
            `INSERT INTO catalog (id, owned_by, prompt_price, completion_price, context_length, max_output, endpoints, source, created)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            [r.id, r.owned_by, r.prompt_price, r.completion_price, r.context_length, r.max_output, r.endpoints, r.source, r.created],
          );
        }
        await notify(c);
      }),
    catalog: async () =>
      (await query<Record<keyof CatalogRow, string | null>>(pool, "SELECT * FROM catalog ORDER BY id")).rows.map((r) =>
        fromCatalogRow({
          id: r.id!,
          owned_by: r.owned_by!,
          prompt_price: num(r.prompt_price),
          completion_price: num(r.completion_price),
          context_length: num(r.context_length),
          max_output: num(r.max_output),
          endpoints: r.endpoints!,
          source: r.source as CatalogModel["source"],
          created: Number(r.created),
        }),
      ),
  };
}
