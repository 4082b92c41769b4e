/**
 * Revoking a key (`gateway keys revoke`, the dashboard's Revoke). A running server sees a CLI
 * revoke through the store's data version; the dashboard, inside the server, drops the key
 * cache itself (src/dashboard/).
 */
import type { Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";
import { findNamedKey } from "./find-key.js";
import { keyView } from "./key-view.js";

/** `account`: only a key of this account (the dashboard, `--account`); another's reads as unknown. */
export async function revokeKey(store: Store, idOrName: string, account: string | undefined, now: number, by: AuditActor) {
  const key = await findNamedKey(store, idOrName, account);
  // Revoking a revoked key changes nothing, so it leaves no record.
  const after = { revoked_at: new Date(now).toISOString() };
  const note = auditNote(by, now, { action: "key.revoke", account: key.account, target: key.id, before: { name: key.name, revoked_at: null }, after });
  if (key.revokedAt === null) await store.audited(note).revokeKey(key.id, now);
  return keyView(store, (await store.findKey(key.id))!, now);
}
