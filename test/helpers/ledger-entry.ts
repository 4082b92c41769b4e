/**
 * A ledger row as a settled request leaves it, for tests that write the store directly: one
 * successful request, its list cost equal to its cost unless given. A test names the fields it
 * is about; the rest are filler.
 */
import type { LedgerEntry } from "../../src/store/index.js";

type Named = Pick<LedgerEntry, "requestId" | "account" | "cost"> & Partial<LedgerEntry>;

export function ledgerEntry(fields: Named): LedgerEntry {
  return {
    createdAt: Date.now(),
    keyId: "k",
    model: "m",
    provider: "p",
    promptTokens: 1,
    completionTokens: 1,
    listCost: fields.cost,
    byok: false,
    usageSource: "provider",
    status: "ok",
    httpStatus: 200,
    latencyMs: 1,
    attempts: 1,
    ...fields,
  };
}
