/**
 * The store interface: every piece of state the gateway keeps, one domain per file beside this
 * one. Nothing outside `src/store/` writes SQL; `sqlite/` and `pg/` implement each domain in
 * a file of the same name. Money is integer nano-USD everywhere (money.ts).
 */
import type { BudgetStore } from "./budgets.js";
import type { AlertStore } from "./alerts.js";
import type { AuditStore } from "./audit.js";
import type { ByokStore } from "./byok.js";
import type { CatalogStore } from "./catalog.js";
import type { DashboardStore } from "./dashboard.js";
import type { JournalStore } from "./journal.js";
import type { KeyStore } from "./keys.js";
import type { LedgerStore } from "./ledger.js";
import type { McpStore } from "./mcp.js";
import type { MoneyStore } from "./money.js";
import type { ModelPriceStore } from "./model-prices.js";
import type { ResponseStore } from "./responses.js";
import type { UsageGroupStore } from "./usage-groups.js";
import type { WatchStore } from "./watch.js";

export type { BudgetRecord, BudgetUse } from "./budgets.js";
export type { AlertSettings, AlertType, ClaimedDelivery, Delivery, DeliveryOutcome, NewDelivery, Webhook } from "./alerts.js";
export type { AuditActor, AuditFields, AuditNote, AuditRecord } from "./audit.js";
export type { ByokRecord } from "./byok.js";
export type { CatalogModel, Endpoint, EndpointPrices, ModelCapabilities } from "./catalog.js";
export type { DashboardUser, Membership } from "./dashboard.js";
export type { InflightRow } from "./journal.js";
export type { KeyCacheMode, KeyChanges, KeyRecord } from "./keys.js";
export type { ApiEndpoint, Attempt, LedgerEntry, PruneResult, UsageFilter, UsageRow } from "./ledger.js";
export type { McpAccountGrant, McpServerRecord } from "./mcp.js";
export type {} from "./money.js";
export type { ModelPrice } from "./model-prices.js";
export type { StoredResponse } from "./responses.js";
export type { UsageGroup, UsageGrouping, UsageRange } from "./usage-groups.js";
export type {} from "./watch.js";

/**
 * Every method answers with a promise, so the SQLite store (synchronous underneath) and the
 * PostgreSQL store (networked) are interchangeable; the rest of the code never knows which
 * one it has (docs/architecture.md, "Processes and state").
 */
export interface Store
  extends
    KeyStore,
    BudgetStore,
    ByokStore,
    MoneyStore,
    LedgerStore,
    ResponseStore,
    DashboardStore,
    CatalogStore,
    ModelPriceStore,
    JournalStore,
    WatchStore,
    UsageGroupStore,
    AlertStore,
    AuditStore,
    McpStore {
  /** `sqlite` (one process owns the file) or `postgres` (any number of processes share it). */
  readonly kind: "sqlite" | "postgres";
  /** Writes what is pending (settlements, leases) and closes the connection(s). */
  close(): Promise<void>;
}
