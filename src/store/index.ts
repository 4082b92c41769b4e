/**
 * The store interface: every piece of state the gateway keeps. Nothing outside
 * `src/store/` writes SQL; a PostgreSQL store would implement the same methods.
 * Money is integer nano-USD everywhere: BigInt for balances and credits (exact up to a
 * 64-bit INTEGER), numbers for one request's cost (below 2^53, see money.ts).
 */
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
}

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
  /** What the balance was charged (0 for BYOK and failures). */
  cost: number;
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
export type InflightRow = Pick<LedgerEntry, "requestId" | "createdAt" | "account" | "keyId" | "model" | "provider" | "promptTokens" | "completionTokens" | "listCost" | "byok">;

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

export interface Store {
  // keys
  createKey(key: KeyRecord): void;
  findKeyByHash(hash: string): KeyRecord | undefined;
  findKey(idOrName: string): KeyRecord | undefined;
  listKeys(account?: string): KeyRecord[];
  revokeKey(id: string, at: number): void;
  touchKeys(lastUsed: Map<string, number>): void;
  /** Changes whenever another connection commits (a CLI revoke, credits add, ...). */
  dataVersion(): number;
  // accounts and money
  ensureAccount(id: string, at: number): void;
  /** Exact at any size (BigInt nano-USD); undefined for an account that does not exist. */
  balance(account: string): bigint | undefined;
  /** Adds `amount` nano-USD and returns the new balance; throws BalanceOverflowError past MAX_NANO. */
  addCredits(account: string, amount: bigint | number, at: number): bigint;
  /** Holds `amount` of the balance for a request; false when the balance minus holds is short. */
  reserve(id: string, account: string, amount: number): boolean;
  /**
   * Charges `entry.cost`, records the request and drops its hold; resolves once committed
   * (settlements arriving together may share one transaction).
   */
  settle(reservationId: string | null, entry: LedgerEntry, attempts: Attempt[]): Promise<void>;
  /** Ledger rows and daily rollups together; a rollup day counts when it starts at or after `since`. */
  usage(filter: { account?: string; since?: number }): UsageRow[];
  /**
   * Folds ledger rows created before `before` (ms) into daily rollups per UTC day, account,
   * key, model and BYOK flag, and deletes them and their attempts, in one transaction.
   */
  prune(before: number): PruneResult;
  /** created_at of the oldest ledger row, so retention can prune an hour at a time. */
  oldestLedgerAt(): number | undefined;
  // BYOK
  setByok(record: ByokRecord): void;
  getByok(account: string, provider: string): ByokRecord | undefined;
  /** One account's BYOK keys; without an account, every account's (the start-up check). */
  listByok(account?: string): ByokRecord[];
  removeByok(account: string, provider: string): boolean;
  /** Accounts' BYOK providers, for /v1/models and routing. */
  byokProviders(account: string): string[];
  // catalog
  replaceCatalog(models: CatalogModel[]): void;
  catalog(): CatalogModel[];
  // the journal of streams in flight (src/journal.ts)
  /** Replaces the journal with these rows; a settlement drops its own row in its transaction. */
  journalInflight(rows: InflightRow[]): void;
  /** Rows a stopped process left: settled at start (each settlement drops its row). */
  leftInflight(): InflightRow[];
  // stored responses (POST /v1/responses); promises, as a networked store answers later
  saveResponse(r: StoredResponse): Promise<void>;
  /** Only the owner's: another account's id reads as unknown. */
  findResponse(id: string, account: string): Promise<StoredResponse | undefined>;
  /**
   * `id` and the responses it continued, oldest first, the owner's only; reading stops after
   * `limit.depth` responses or once `limit.bytes` of items were read.
   */
  responseChain(id: string, account: string, limit: { depth: number; bytes: number }): Promise<StoredResponse[]>;
  deleteResponse(id: string, account: string): Promise<boolean>;
  /** Deletes responses created before `before` (ms); returns how many. */
  pruneResponses(before: number): number;
  close(): void;
}
