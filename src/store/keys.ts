import type { GuardMode } from "../guardrails/policy.js";
/** Gateway keys: stored by hash, with their limits (rpm, expiry, a budget per period). */
import type { BudgetPeriod } from "../core/budget-periods.js";

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
  /** Spending limit in nano-USD per `budgetPeriod` (docs/limits.md); null or absent: none. */
  budget?: bigint | null;
  /** Calendar period in UTC; `total` (the default) never rolls over. */
  budgetPeriod?: BudgetPeriod;
  /**
   * The response cache for this key's requests (docs/cache.md): `on` caches deterministic
   * requests (temperature 0), `nondeterministic` any temperature; absent or `off`: never.
   */
  cache?: KeyCacheMode;
  /** The dashboard user who created the key (a member sees and manages only theirs); null: the CLI. */
  createdBy?: string | null;
  /**
   * Someone other than its creator (an owner, admin or the CLI) set the key's budget, period,
   * rpm or expiry: its creator, a member, may then only tighten them (docs/dashboard.md).
   */
  limitsByManager?: boolean;
  /**
   * The MCP tools the key may call (docs/mcp.md, "Grants"): `<server>:<tool glob>` entries; null,
   * absent or empty: none (deny by default).
   */
  mcp?: string[] | null;
  /** The secret guardrail's mode for this key's requests (docs/guardrails.md); null or absent: its account's, else the config's. */
  guardrails?: GuardMode | null;
}

export type KeyCacheMode = "off" | "on" | "nondeterministic";

/** What `keys update` may change; a field left out is unchanged. */
export type KeyChanges = Partial<Pick<KeyRecord, "budget" | "budgetPeriod" | "rpm" | "expiresAt" | "cache" | "limitsByManager" | "mcp" | "guardrails">>;

export interface KeyStore {
  createKey(key: KeyRecord): Promise<void>;
  findKeyByHash(hash: string): Promise<KeyRecord | undefined>;
  /**
   * The key with this id, else the key with this name. Names are unique per account, not across
   * accounts: with `account` only that account's key is found (by id or name); without it, a
   * name several accounts use finds none (operations/find-key.ts then names the accounts).
   */
  findKey(idOrName: string, account?: string): Promise<KeyRecord | undefined>;
  listKeys(account?: string): Promise<KeyRecord[]>;
  revokeKey(id: string, at: number): Promise<void>;
  /** Changes a key; a new budget period recounts its spend in the current period from the ledger. */
  updateKey(id: string, changes: KeyChanges, at: number): Promise<void>;
  touchKeys(lastUsed: Map<string, number>): Promise<void>;
}

/** Of the keys whose id or name is `idOrName`: the id's, else the name's when only one has it (Store.findKey). */
export function pickKey(idOrName: string, found: KeyRecord[]): KeyRecord | undefined {
  return found.find((k) => k.id === idOrName) ?? (found.length === 1 ? found[0] : undefined);
}
