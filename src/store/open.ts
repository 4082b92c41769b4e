/**
 * Opens the store a `database` setting names: a `postgres://` URL (several processes share
 * it) or a file path (SQLite, one process). The rest of the code only sees the Store interface.
 */
import type { Store } from "./index.js";
import { isPostgresUrl } from "../core/database-url.js";
import { openSqliteStore } from "./sqlite/index.js";

/** The config's `fleet` settings, which only PostgreSQL uses (SQLite ignores them). */
export interface FleetSettings {
  leaseSeconds: number;
  maxConnections: number;
  /** Requests one lease slice covers on a busy lane (docs/fleet.md, "Leases"); 0 = none. */
  leaseRequests: number;
}

export async function openStore(database: string, fleet?: FleetSettings): Promise<Store> {
  if (!isPostgresUrl(database)) return openSqliteStore(database);
  // Loaded only for a postgres:// URL: pg and the store's ~20 modules cost a SQLite start ~3 MB and ~20 ms.
  const { openPostgresStore } = await import("./pg/index.js");
  return openPostgresStore(
    database,
    fleet ? { leaseMs: fleet.leaseSeconds * 1000, maxConnections: fleet.maxConnections, leaseRequests: fleet.leaseRequests } : {},
  );
}
