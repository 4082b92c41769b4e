/**
 * Changing a key (`gateway keys update`, the dashboard's Edit): budget, period, rpm, expiry,
 * response cache, with its audit record. A running server sees it within 1 s (the store's change
 * watch; the dashboard, inside the server, drops the key cache itself).
 */
import type { KeyChanges, Store } from "../store/index.js";
import { auditNote, changedFields, keyFields, type AuditActor } from "./audit-note.js";
import { findNamedKey } from "./find-key.js";
import { refuseLoosening, touchesLimits } from "./key-limits.js";
import { keyView } from "./key-view.js";

/**
 * `account`: only a key of this account (the dashboard, `--account`); another's reads as unknown.
 * `tightenOnly`: the editor is a member on their own key, who may not loosen limits an owner or
 * admin set (operations/key-limits.ts). Limits set on a dashboard user's key by anyone else mark
 * them as a manager's.
 */
export async function updateKey(
  store: Store,
  idOrName: string,
  changes: KeyChanges,
  account: string | undefined,
  now: number,
  by: AuditActor,
  tightenOnly = false,
) {
  const key = await findNamedKey(store, idOrName, account);
  if (tightenOnly) refuseLoosening(key, changes);
  const byManager = touchesLimits(changes) && key.createdBy != null && by.actor !== key.createdBy;
  const all: KeyChanges = byManager ? { ...changes, limitsByManager: true } : changes;
  const diff = changedFields(keyFields(key), keyFields({ ...key, ...all }));
  await store.audited(auditNote(by, now, { action: "key.update", account: key.account, target: key.id, ...diff })).updateKey(key.id, all, now);
  return keyView(store, (await store.findKey(key.id))!, now);
}
