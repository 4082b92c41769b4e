/**
 * The PostgreSQL store: the Store interface for any number of gateway processes sharing one
 * database (contract.md §7, docs/fleet.md). Connects, migrates under an advisory lock, then
 * registers this process (an instance whose lease it renews with its holds).
 */
import { randomUUID } from "node:crypto";
import type { Store } from "../index.js";
import { createPool, query } from "./db.js";
import { pgJournal } from "./journal.js";
import { migratePg } from "./migrate.js";
import { DEFAULT_LEASE_MS, pgMoney } from "./money.js";
import { pgRecords } from "./records.js";
import { pgResponses } from "./responses.js";
import { pgDashboard } from "./dashboard.js";
import { pgActivity } from "./activity.js";
import { pgUsage } from "./usage.js";
import { watchNotifications } from "./watch.js";

export interface PgOptions {
  /** How long a hold lives without renewal (contract.md §7: 30 s). */
  leaseMs?: number;
  /** Most connections this process opens (the LISTEN connection aside). */
  maxConnections?: number;
}

export { isPostgresUrl } from "../../core/database-url.js";

export async function openPostgresStore(url: string, opts: PgOptions = {}): Promise<Store> {
  const pool = createPool(url, opts.maxConnections);
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const owner = `inst_${randomUUID()}`;
  try {
    await migratePg(pool);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  const money = pgMoney(pool, owner, leaseMs);
  const watch = watchNotifications(url);
  await money.start();
  return {
    kind: "postgres",
    ...pgRecords(pool),
    ...pgUsage(pool),
    ...pgResponses(pool),
    ...pgDashboard(pool),
    ...pgActivity(pool),
    ...pgJournal(pool, owner, leaseMs),
    reserve: money.reserve,
    settle: money.settle,
    keyBudgetUse: money.keyBudgetUse,
    balance: money.balance,
    addCredits: money.addCredits,
    adjustCredits: money.adjustCredits,
    updateKey: money.updateKey,
    watch: watch.add,
    async close() {
      await money.stop();
      await watch.stop();
      await query(pool, "DELETE FROM instances WHERE id = $1", [owner]).catch(() => undefined);
      await pool.end();
    },
  };
}
