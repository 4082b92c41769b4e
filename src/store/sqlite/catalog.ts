/** The catalog on SQLite: replaced whole in one transaction (`models sync`), read at start and on change. */
import type Database from "better-sqlite3";
import { writeTransaction } from "./tx.js";
import type { CatalogModel } from "../catalog.js";
import { fromCatalogRow, toCatalogColumns, type CatalogRow } from "../catalog-row.js";

export function sqliteCatalog(db: Database.Database) {
  const s = {
    catalog: db.prepare("SELECT * FROM catalog ORDER BY id"),
    insertCatalog: db.prepare(`INSERT INTO catalog (id, owned_by, prompt_price, completion_price, context_length, max_output, endpoints, source, created)
      VALUES (@id, @owned_by, @prompt_price, @completion_price, @context_length, @max_output, @endpoints, @source, @created)`),
  };
  return {
    replaceCatalog: writeTransaction(db, (models: CatalogModel[]) => {
      db.exec("DELETE FROM catalog");
      for (const m of models) s.insertCatalog.run(toCatalogColumns(m));
    }),
    catalog: () => (s.catalog.all() as CatalogRow[]).map(fromCatalogRow),
  };
}
