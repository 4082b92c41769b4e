/**
 * The PostgreSQL store: the Store interface for any number of gateway processes sharing one
 * database (docs/fleet.md, docs/fleet.md). Connects, migrates under an advisory lock, then
 * registers this process (an instance whose lease it renews with its holds).
 */
import { randomUUID } from "node:crypto";
import type { Store } from "../index.js";
import { createPool, query } from "./db.js";
import { pgBudgets } from "./budgets.js";
import { pgAlerts } from "./alerts.js";
import { pgAudit } from "./audit.js";
import { pgByok } from "./byok.js";
import { pgCatalog } from "./catalog.js";
import { pgDashboard } from "./dashboard.js";
import { pgJournal } from "./journal.js";
import { pgKeys } from "./keys.js";
import { pgLedger } from "./ledger.js";
import { pgUsageGroups } from "./usage-groups.js";
import { migratePg } from "./migrate.js";
import { DEFAULT_LEASE_MS, pgMoney } from "./money.js";
import { pgResponses } from "./responses.js";
import { watchNotifications } from "./watch.js";

export interface PgOptions {
  /** How long a hold lives without renewal (docs/fleet.md: 30 s). */
  leaseMs?: number;
  /** Most connections this process opens (the LISTEN connection aside). */
  maxConnections?: number;
}

export {} from "../../core/database-url.js";

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
  const audit = pgAudit(pool);
  const store: Store = {
    kind: "postgres",
    ...pgKeys(pool),
    ...pgBudgets(pool),
    ...pgByok(pool),
    ...pgLedger(pool),
    ...pgUsageGroups(pool),
    ...pgResponses(pool),
    ...pgDashboard(pool),
    ...pgCatalog(pool),
    ...pgAlerts(pool),
    ...pgJournal(pool, owner, leaseMs),
    ensureAccount: money.ensureAccount,
    balance: money.balance,
    addCredits: money.addCredits,
    accounts: money.accounts,
    adjustCredits: money.adjustCredits,
    creditHistory: money.creditHistory,
    reserve: money.reserve,
    settle: money.settle,
    release: money.release,
    keyBudgetUse: money.keyBudgetUse,
    watch: watch.add,
    hearing: watch.hearing,
    audited: (note) => audit.auditedView(store, note),
    appendAudit: audit.appendAudit,
    auditRecords: audit.auditRecords,
    auditHead: audit.auditHead,
    async close() {
      await money.stop();
      await watch.stop();
      await query(pool, "DELETE FROM instances WHERE id = $1", [owner]).catch(() => undefined);
      await pool.end();
    },
  };
  return store;
}
