/**
 * The store interface: every piece of state the gateway keeps. Nothing outside
 * `src/store/` writes SQL; a PostgreSQL store would implement the same methods.
 * Money is integer nano-USD everywhere: BigInt for balances and credits (exact up to a
 * 64-bit INTEGER), numbers for one request's cost (below 2^53, see core/money.ts).
 */
import type { BudgetHold, BudgetPeriod } from "../core/budget.js";

export interface KeyRecord {
  id: string;
  name: string;
  account: string;
  hash: string;
  last4: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  rpm: number | null;
  /** Spending limit in nano-USD per `budgetPeriod` (contract.md §10); null or absent: none. */
  budget?: bigint | null;
  /** Calendar period in UTC; `total` (the default) never rolls over. */
  budgetPeriod?: BudgetPeriod;
}

/** What `keys update` may change; a field left out is unchanged. */
export type KeyChanges = Partial<Pick<KeyRecord, "budget" | "budgetPeriod" | "rpm" | "expiresAt">>;

export interface Endpoint {
  /** Provider instance id (the key of `providers:` in the config). */
  provider: string;
  /** Upstream model name. */
  model: string;
}

/** What a model can do; an absent flag is unknown (the gateway does not refuse on a guess). */
export interface ModelCapabilities {
  tools?: boolean;
  structured_output?: boolean;
  images?: boolean;
  reasoning?: boolean;
  web_search?: boolean;
  /** The model kind (contract.md §12): absent `chat` means a chat model; `embeddings` must be true to serve /v1/embeddings. */
  chat?: boolean;
  embeddings?: boolean;
}

export interface CatalogModel {
  id: string;
  ownedBy: string;
  /** nano-USD per 1M tokens; null when unknown (such a model is not billable on the platform). */
  promptPrice: number | null;
  completionPrice: number | null;
  /** nano-USD per 1M cached prompt tokens read / written (contract.md §10); absent: the prompt price. */
  cacheReadPrice?: number | null;
  cacheWritePrice?: number | null;
  contextLength: number | null;
  maxOutput: number | null;
  endpoints: Endpoint[];
  order?: "latency" | "fixed";
  capabilities?: ModelCapabilities;
  source: "bundled" | "live" | "config";
  created: number;
}

export interface LedgerEntry {
  requestId: string;
  createdAt: number;
  account: string;
  keyId: string;
  model: string;
  provider: string | null;
  promptTokens: number;
  completionTokens: number;
  /**
   * What to charge: the list cost for platform requests, 0 for BYOK and failures. The store
   * charges what the balance and the key's budget allow beyond other requests' holds, writes
   * that as `cost` and the rest as `uncollected` (contract.md §10).
   */
  cost: number;
  /** Set by the store: the part of `cost` it could not collect. */
  uncollected?: number;
  /** Price list cost, recorded for BYOK too. */
  listCost: number;
  byok: boolean;
  usageSource: "provider" | "estimated" | "none";
  status: "ok" | "error" | "cancelled";
  httpStatus: number;
  latencyMs: number;
  attempts: number;
  /** The API the request came through; absent means chat (rows from before the column). */
  endpoint?: ApiEndpoint;
}

/** The ledger's `endpoint` column: which API served the request. */
export type ApiEndpoint = "chat" | "embeddings" | "responses";

export interface Attempt {
  requestId: string;
  createdAt: number;
  provider: string;
  model: string;
  outcome: string;
  httpStatus: number | null;
  latencyMs: number;
}

export interface UsageRow {
  model: string;
  keyId: string;
  keyName: string | null;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** Sums of many requests: BigInt, exact past 2^53 nano-USD. */
  cost: bigint;
  /** Price-list cost, BYOK included. */
  listCost: bigint;
  /** Charges that exceeded what the balance (or the key's budget) had left. */
  uncollected: bigint;
  endpoint: ApiEndpoint;
}

/** What one prune did: ledger rows and attempts deleted, daily rollup rows written or added to. */
export interface PruneResult {
  rows: number;
  attempts: number;
  rollups: number;
}

export interface ByokRecord {
  account: string;
  provider: string;
  secret: Buffer;
  last4: string;
  updatedAt: number;
}

/** A stream in flight, as last journaled: what it had delivered and what that costs at list price. */
export type InflightRow = Pick<
  LedgerEntry,
  "requestId" | "createdAt" | "account" | "keyId" | "model" | "provider" | "promptTokens" | "completionTokens" | "listCost" | "byok"
>;

/** A response kept for `previous_response_id` and GET /v1/responses/{id} (contract.md §12). */
export interface StoredResponse {
  id: string;
  account: string;
  /** ms, like the ledger's created_at: retention prunes both by the same cutoff. */
  createdAt: number;
  model: string;
  /** The response this one continued; its items come before this one's. */
  previousId: string | null;
  /** This turn's input items, then its output items (the Responses item form). */
  items: unknown[];
  /** The response object as it was answered. */
  response: unknown;
}

/** `gateway accounts list`: balance, active keys and what was charged (ledger + rollups), exact. */
export interface AccountSummary {
  id: string;
  balance: bigint;
  createdAt: number;
  keys: number;
  spend: bigint;
}

/** A dashboard user (contract.md §8): one account; an admin sees every account. */
export interface DashboardUser {
  email: string;
  account: string;
  admin: boolean;
  /** scrypt hash (src/dashboard/password.ts); null until the user chose a password through a sign-in link. */
  passwordHash: string | null;
  createdAt: number;
}

/** A signed-in browser: the SHA-256 of its cookie's token, never the token. */
export interface DashboardSession {
  hash: string;
  email: string;
  createdAt: number;
  expiresAt: number;
}

/** One day (UTC midnight, ms) of an account's spend: what was charged and how many requests. */
export interface DailySpend {
  day: number;
  cost: bigint;
  requests: number;
}

/** A ledger row as the dashboard's latest requests show it. */
export type RecentRequest = Pick<
  LedgerEntry,
  "requestId" | "createdAt" | "keyId" | "model" | "provider" | "promptTokens" | "completionTokens" | "cost" | "byok" | "status" | "httpStatus" | "latencyMs"
> & { keyName: string | null };

/** A credit grant or correction (`credits add|adjust`), newest first. */
export interface CreditEntry {
  amount: bigint;
  kind: "grant" | "adjustment";
  reason: string | null;
  createdAt: number;
}

/**
 * Every method answers with a promise, so the SQLite store (synchronous underneath) and the
 * PostgreSQL store (networked) are interchangeable; the rest of the code never knows which
 * one it has (docs/architecture.md, "Processes and state").
 */
export interface Store {
  /** `sqlite` (one process owns the file) or `postgres` (any number of processes share it). */
  readonly kind: "sqlite" | "postgres";
  // keys
  createKey(key: KeyRecord): Promise<void>;
  findKeyByHash(hash: string): Promise<KeyRecord | undefined>;
  findKey(idOrName: string): Promise<KeyRecord | undefined>;
  listKeys(account?: string): Promise<KeyRecord[]>;
  revokeKey(id: string, at: number): Promise<void>;
  /** Changes a key; a new budget period recounts its spend in the current period from the ledger. */
  updateKey(id: string, changes: KeyChanges, at: number): Promise<void>;
  /** A key's spend in the period that starts at `since` (ms; 0 = ever) and the nano-USD its open requests hold. */
  keyBudgetUse(keyId: string, since: number): Promise<{ spent: bigint; held: number }>;
  touchKeys(lastUsed: Map<string, number>): Promise<void>;
  /**
   * Calls `listener` when another connection or process changed keys, credits, BYOK keys or
   * the catalog (a CLI revoke, `credits add`, `models sync`), so caches can be dropped:
   * SQLite polls its data_version, PostgreSQL listens for a notification. Returns the unsubscribe.
   */
  watch(listener: () => void): () => void;
  // accounts and money
  ensureAccount(id: string, at: number): Promise<void>;
  /** Exact at any size (BigInt nano-USD); undefined for an account that does not exist. */
  balance(account: string): Promise<bigint | undefined>;
  /** Adds `amount` nano-USD and returns the new balance; throws BalanceOverflowError past MAX_NANO. */
  addCredits(account: string, amount: bigint | number, at: number): Promise<bigint>;
  /** Every account, by id. */
  accounts(): Promise<AccountSummary[]>;
  /**
   * Corrects a balance by a signed amount with a reason (a credit_grants row of kind
   * 'adjustment'); throws for an unknown account, a result below zero or past MAX_NANO.
   */
  adjustCredits(account: string, delta: bigint, reason: string, at: number): Promise<bigint>;
  /**
   * Holds `amount` of the balance for a request, and of the key's budget when given, in one
   * atomic step; false when the balance minus holds is short, or the budget minus the key's
   * spend and holds. A hold lives until its settlement; a networked store leases it to this
   * process, which renews it, so a killed process's holds expire (contract.md §7).
   */
  reserve(id: string, account: string, amount: number, budget?: BudgetHold): Promise<boolean>;
  /**
   * Charges `entry.cost` in full where it can, records the request and drops its hold; resolves
   * once committed (settlements arriving together may share one transaction). Beyond its own
   * hold a charge takes only what other requests do not hold, of the balance and of the key's
   * budget; the rest is recorded as `uncollected`. So neither ever goes below zero.
   */
  settle(reservationId: string | null, entry: LedgerEntry, attempts: Attempt[]): Promise<void>;
  /** Ledger rows and daily rollups together; a rollup day counts when it starts at or after `since`. */
  usage(filter: { account?: string; since?: number }): Promise<UsageRow[]>;
  /**
   * Folds ledger rows created before `before` (ms) into daily rollups per UTC day, account,
   * key, model and BYOK flag, and deletes them and their attempts, in one transaction.
   */
  prune(before: number): Promise<PruneResult>;
  /** created_at of the oldest ledger row, so retention can prune an hour at a time. */
  oldestLedgerAt(): Promise<number | undefined>;
  // BYOK
  setByok(record: ByokRecord): Promise<void>;
  /** One account's BYOK keys; without an account, every account's (the start-up check). */
  listByok(account?: string): Promise<ByokRecord[]>;
  removeByok(account: string, provider: string): Promise<boolean>;
  // catalog
  replaceCatalog(models: CatalogModel[]): Promise<void>;
  catalog(): Promise<CatalogModel[]>;
  // the journal of streams in flight (src/billing/journal.ts)
  /** Replaces this process's journal rows with these; a settlement drops its own row in its transaction. */
  journalInflight(rows: InflightRow[]): Promise<void>;
  /** Rows a stopped process left: settled at start (each settlement drops its row). */
  leftInflight(): Promise<InflightRow[]>;
  // stored responses (POST /v1/responses)
  saveResponse(r: StoredResponse): Promise<void>;
  /** Only the owner's: another account's id reads as unknown. */
  findResponse(id: string, account: string): Promise<StoredResponse | undefined>;
  /**
   * `id` and the responses it continued, oldest first, the owner's only; reading stops after
   * `limit.depth` responses or once `limit.bytes` of items were read.
   */
  responseChain(id: string, account: string, limit: { depth: number; bytes: number }): Promise<StoredResponse[]>;
  deleteResponse(id: string, account: string): Promise<boolean>;
  // the dashboard (contract.md §8); promises from the start, as a networked store answers later
  /** Refuses an email that exists (a unique constraint error). */
  createUser(user: DashboardUser): Promise<void>;
  findUser(email: string): Promise<DashboardUser | undefined>;
  listUsers(): Promise<DashboardUser[]>;
  /** Deletes the user with its sessions and links; false when there was none. */
  removeUser(email: string): Promise<boolean>;
  /** Sets the password hash and ends every session of the user (a reset signs out everywhere). */
  setPassword(email: string, passwordHash: string): Promise<void>;
  createSession(session: DashboardSession): Promise<void>;
  /** The session's user while the session has not expired at `now`. */
  findSession(hash: string, now: number): Promise<DashboardUser | undefined>;
  deleteSession(hash: string): Promise<void>;
  /** A new sign-in link replaces the user's earlier ones. */
  createSignInLink(hash: string, email: string, expiresAt: number): Promise<void>;
  /** Deletes the link and returns its user's email if it had not expired at `now`: single use. */
  takeSignInLink(hash: string, now: number): Promise<string | undefined>;
  /** Spend per UTC day since `since` (ms), ledger rows and retention's daily rollups alike. */
  dailySpend(account: string, since: number): Promise<DailySpend[]>;
  /** The account's latest ledger rows, newest first. */
  recentRequests(account: string, limit: number): Promise<RecentRequest[]>;
  creditHistory(account: string, limit: number): Promise<CreditEntry[]>;
  /** Deletes responses created before `before` (ms); returns how many. */
  pruneResponses(before: number): Promise<number>;
  /** Writes what is pending (settlements, leases) and closes the connection(s). */
  close(): Promise<void>;
}
