/** Creating a key (`gateway keys create`, the dashboard's Create key): the full value exists only in the answer. */
import type { GuardMode } from "../guardrails/policy.js";
import type { BudgetPeriod } from "../core/budget-periods.js";
import { invalidRequest } from "../core/errors.js";
import { generateKey, hashKey, newKeyId } from "../access/keys.js";
import type { KeyCacheMode, KeyRecord, Store } from "../store/index.js";
import { auditNote, keyFields, type AuditActor } from "./audit-note.js";
import { keyView } from "./key-view.js";

export interface NewKey {
  name: string;
  account: string;
  expiresAt: number | null;
  rpm: number | null;
  budget?: bigint | null;
  budgetPeriod?: BudgetPeriod;
  /** The response cache for this key (docs/cache.md); absent: off. */
  cache?: KeyCacheMode | undefined;
  /** The key's own secret guardrail mode (docs/guardrails.md); absent: the config's. */
  guardrails?: GuardMode | undefined;
  /** The dashboard user creating it; absent: the CLI. */
  createdBy?: string | undefined;
  /** Its MCP grant (`--mcp`, docs/mcp.md); absent: none. */
  mcp?: string[] | null;
}

export async function createKey(store: Store, k: NewKey, now: number, by: AuditActor) {
  // Names are unique per account (docs/cli.md "Keys"): this speaks only of the caller's own account.
  if (await store.findKey(k.name, k.account)) throw invalidRequest(`account '${k.account}' already has a key named '${k.name}'`, "key_name_taken", "name");
  const key = generateKey();
  const record: KeyRecord = {
    id: newKeyId(),
    name: k.name,
    account: k.account,
    hash: hashKey(key),
    last4: key.slice(-4),
    createdAt: now,
    expiresAt: k.expiresAt,
    revokedAt: null,
    lastUsedAt: null,
    rpm: k.rpm,
    budget: k.budget ?? null,
    budgetPeriod: k.budgetPeriod ?? "total",
    cache: k.cache ?? "off",
    createdBy: k.createdBy ?? null,
    mcp: k.mcp?.length ? k.mcp : null,
    guardrails: k.guardrails ?? null,
  };
  await store.ensureAccount(k.account, now);
  const note = auditNote(by, now, { action: "key.create", account: record.account, target: record.id, before: null, after: keyFields(record) });
  await store.audited(note).createKey(record);
  return { ...(await keyView(store, record, now)), key };
}
