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
import { pgModelPrices } from "./model-prices.js";
import { pgDashboard } from "./dashboard.js";
import { pgJournal } from "./journal.js";
import { pgKeys } from "./keys.js";
import { pgLedger } from "./ledger.js";
import { pgMcp } from "./mcp.js";
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
  /** `fleet.leaseRequests`: requests a lease slice covers on a busy lane; 0 (the default here) = one hold per request (docs/fleet.md, "Leases"). */
  leaseRequests?: number;
  /** The clock of holds and lease lanes (tests hold it still so a lane's rate does not depend on the machine's speed). */
  now?: () => number;
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
  const watch = watchNotifications(url);
  const money = pgMoney(pool, owner, leaseMs, { leaseRequests: opts.leaseRequests ?? 0, hearing: watch.hearing, now: opts.now });
  if (opts.leaseRequests) {
    // Any change (credits, budgets, keys) retires the lanes; a refusal elsewhere asks for room back.
    watch.add(() => money.leases.changed());
    watch.asked((account) => money.leases.asked(account));
  }
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
    ...pgModelPrices(pool),
    ...pgAlerts(pool),
    ...pgMcp(pool),
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
