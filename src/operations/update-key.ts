/**
 * Changing a key (`gateway keys update`, the dashboard's Edit): budget, period, rpm, expiry,
 * response cache, with its audit record. A running server sees it within 1 s (the store's change
 * watch; the dashboard, inside the server, drops the key cache itself).
 */
import type { KeyChanges, Store } from "../store/index.js";
import { auditNote, changedFields, keyFields, type AuditActor } from "./audit-note.js";
import { findNamedKey } from "./find-key.js";
import { keyView } from "./key-view.js";

/** `account`: only a key of this account (the dashboard, `--account`); another's reads as unknown. */
export async function updateKey(store: Store, idOrName: string, changes: KeyChanges, account: string | undefined, now: number, by: AuditActor) {
  const key = await findNamedKey(store, idOrName, account);
  const diff = changedFields(keyFields(key), keyFields({ ...key, ...changes }));
  await store.audited(auditNote(by, now, { action: "key.update", account: key.account, target: key.id, ...diff })).updateKey(key.id, changes, now);
  return keyView(store, (await store.findKey(key.id))!, now);
}
