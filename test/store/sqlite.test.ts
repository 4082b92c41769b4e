/** The Store contract (store.cases.ts) on SQLite: a new file per case, removed after it. */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { tempDir } from "../helpers/cli.js";
import { alertStoreCases } from "./alerts.cases.js";
import { reportedUsageStoreCases } from "./reported-usage.cases.js";
import { modelPriceStoreCases } from "./model-prices.cases.js";
import { mcpStoreCases } from "./mcp.cases.js";
import { storeCases, type StoreHarness } from "./store.cases.js";

const make = async (): Promise<StoreHarness> => {
  const dir = tempDir();
  const db = join(dir, "store.db");
  return { db, open: async () => openSqliteStore(db), drop: async () => rmSync(dir, { recursive: true, force: true }), sharedHolds: false };
};

storeCases(make);
alertStoreCases(make);
reportedUsageStoreCases(make);
modelPriceStoreCases(make);
mcpStoreCases(make);
