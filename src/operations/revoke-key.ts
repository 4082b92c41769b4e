/**
 * Revoking a key (`gateway keys revoke`, the dashboard's Revoke). A running server sees a CLI
 * revoke through the store's data version; the dashboard, inside the server, drops the key
 * cache itself (src/dashboard/).
 */
import { notFound } from "../core/errors.js";
import type { Store } from "../store/index.js";
import { keyView } from "./key-view.js";

/** `account`: only a key of this account (the dashboard); another's reads as unknown. */
export async function revokeKey(store: Store, idOrName: string, account: string | undefined, now: number) {
  const key = await store.findKey(idOrName);
  if (!key || (account !== undefined && key.account !== account)) throw notFound(`no key with id or name '${idOrName}'`, "key_not_found");
  if (key.revokedAt === null) await store.revokeKey(key.id, now);
  return keyView(store, (await store.findKey(key.id))!, now);
}
