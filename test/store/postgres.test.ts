/** The Store contract (store.cases.ts) on PostgreSQL: a new database per case, dropped after it. */
import { openPostgresStore } from "../../src/store/pg/index.js";
import { createTestDatabase } from "../helpers/services.js";
import { alertStoreCases } from "./alerts.cases.js";
import { reportedUsageStoreCases } from "./reported-usage.cases.js";
import { modelPriceStoreCases } from "./model-prices.cases.js";
import { mcpStoreCases } from "./mcp.cases.js";
import { storeCases, type StoreHarness } from "./store.cases.js";

const make = async (): Promise<StoreHarness> => {
  const db = await createTestDatabase();
  return { db: db.url, open: () => openPostgresStore(db.url), drop: db.drop, sharedHolds: true };
};

storeCases(make);
alertStoreCases(make);
reportedUsageStoreCases(make);
modelPriceStoreCases(make);
mcpStoreCases(make);
