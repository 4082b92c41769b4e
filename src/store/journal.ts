/** The journal of streams in flight (src/billing/journal.ts): what a stopped process leaves is billed at start. */
import type { LedgerEntry } from "./ledger.js";

/** A stream in flight, as last journaled: what it had delivered and what that costs at list price. */
export type InflightRow = Pick<
  LedgerEntry,
  "requestId" | "createdAt" | "account" | "keyId" | "model" | "provider" | "promptTokens" | "completionTokens" | "listCost" | "byok"
>;

export interface JournalStore {
  /** Replaces this process's journal rows with these; a settlement drops its own row in its transaction. */
  journalInflight(rows: InflightRow[]): Promise<void>;
  /** Rows a stopped process left: settled at start (each settlement drops its row). */
  leftInflight(): Promise<InflightRow[]>;
}
