/**
 * The ledger: one row per request (and its failed-over attempts), folded into daily rollups by
 * retention; usage and the dashboard's activity read rows and rollups together.
 */

/** The ledger's `endpoint` column: which API served the request. */
export type ApiEndpoint = "chat" | "embeddings" | "responses" | "messages" | "gemini" | "mcp";

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
   * that as `cost` and the rest as `uncollected` (docs/limits.md).
   */
  cost: number;
  /** Set by the store: the part of `cost` it could not collect. */
  uncollected?: number;
  /** Price list cost, recorded for BYOK too. */
  listCost: number;
  byok: boolean;
  /** `cache_hit`: answered from the response cache (docs/cache.md), cost 0, `listCost` what it saved. */
  usageSource: "provider" | "estimated" | "none" | "cache_hit";
  status: "ok" | "error" | "cancelled";
  httpStatus: number;
  latencyMs: number;
  attempts: number;
  /** The API the request came through; absent means chat (rows from before the column). */
  endpoint?: ApiEndpoint;
  /** The request's tags (docs/usage.md, "Tags"): name → value; absent or null, none. */
  tags?: Record<string, string> | null;
  /**
   * The counts before a bound cut them (docs/limits.md): what the provider reported above the
   * sanity ceiling, or what the gateway counted above what the request could produce. Absent or
   * null: the counts billed are the counts reported.
   */
  reportedPromptTokens?: number | null;
  reportedCompletionTokens?: number | null;
  /** Per-call tool counts billed, by name (docs/billing.md, "Per-call tool fees"); absent or null: none. */
  toolCalls?: Record<string, number> | null;
  /** The tool counts reported, when the ceiling cut one. */
  reportedToolCalls?: Record<string, number> | null;
  /** The per-call fees inside `listCost`, nano-USD. */
  toolCost?: number;
  /** An MCP tool call's bytes received from the client and sent back (docs/mcp.md); absent or null: not a tool call. */
  bytesIn?: number | null;
  bytesOut?: number | null;
}

export interface Attempt {
  requestId: string;
  createdAt: number;
  provider: string;
  model: string;
  outcome: string;
  httpStatus: number | null;
  latencyMs: number;
  /** Why a failed attempt failed (upstream/failure-reason.ts), for the request line; not stored. */
  reason?: string;
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
  /** Requests answered from the response cache (docs/cache.md), and the list cost they saved. */
  cacheHits: number;
  cacheSaved: bigint;
  /** Requests billed at a bound (docs/limits.md), and the per-call tool fees inside `listCost` (docs/billing.md). */
  bounded: number;
  toolCost: bigint;
}

/** What one prune did: ledger rows and attempts deleted, daily rollup rows written or added to. */
export interface PruneResult {
  rows: number;
  attempts: number;
  rollups: number;
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

/** Which usage to read; `member`: only keys that dashboard user created (a member's own usage, docs/dashboard.md). */
export interface UsageFilter {
  account?: string;
  since?: number;
  member?: string;
}

export interface LedgerStore {
  /** Ledger rows and daily rollups together; a rollup day counts when it starts at or after `since`. */
  usage(filter: UsageFilter): Promise<UsageRow[]>;
  /**
   * Folds ledger rows created before `before` (ms) into daily rollups per UTC day, account,
   * key, model and BYOK flag, and deletes them and their attempts, in one transaction.
   */
  prune(before: number): Promise<PruneResult>;
  /** created_at of the oldest ledger row, so retention can prune an hour at a time. */
  oldestLedgerAt(): Promise<number | undefined>;
  /** Spend per UTC day since `since` (ms), ledger rows and retention's daily rollups alike; `member` as UsageFilter. */
  dailySpend(account: string, since: number, member?: string | null): Promise<DailySpend[]>;
  /** The account's latest ledger rows, newest first; `member`: only those of keys that user created. */
  recentRequests(account: string, limit: number, member?: string | null): Promise<RecentRequest[]>;
}
