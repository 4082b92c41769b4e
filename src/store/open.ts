/**
 * Opens the store a `database` setting names: a `postgres://` URL (several processes share
 * it) or a file path (SQLite, one process). The rest of the code only sees the Store interface.
 */
import type { Config } from "../config/config.js";
import type { Store } from "./index.js";
import { openPostgresStore, type PgOptions } from "./pg/index.js";
import { isPostgresUrl } from "../core/database-url.js";
import { openSqliteStore } from "./sqlite/index.js";

/** The PostgreSQL settings of a config (ignored by SQLite). */
export const storeOptions = (config: Config): PgOptions => ({ leaseMs: config.fleet.leaseSeconds * 1000, maxConnections: config.fleet.maxConnections });

export async function openStore(database: string, opts: PgOptions = {}): Promise<Store> {
  return isPostgresUrl(database) ? openPostgresStore(database, opts) : openSqliteStore(database);
}
