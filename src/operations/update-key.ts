/** Changing a key's budget, rpm, expiry or response cache (`gateway keys update`), with its audit record. */
import { notFound } from "../core/errors.js";
import type { KeyChanges, Store } from "../store/index.js";
import { auditNote, changedFields, keyFields, type AuditActor } from "./audit-note.js";
import { keyView } from "./key-view.js";

export async function updateKey(store: Store, idOrName: string, changes: KeyChanges, now: number, by: AuditActor) {
  const key = await store.findKey(idOrName);
  if (!key) throw notFound(`no key with id or name '${idOrName}'`, "key_not_found");
  const diff = changedFields(keyFields(key), keyFields({ ...key, ...changes }));
  await store.audited(auditNote(by, now, { action: "key.update", account: key.account, target: key.id, ...diff })).updateKey(key.id, changes, now);
  return keyView(store, (await store.findKey(key.id))!, now);
}
