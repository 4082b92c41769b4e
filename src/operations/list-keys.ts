/** Listing keys, masked (`gateway keys list`, the dashboard's Keys page). */
import type { Store } from "../store/index.js";
import { keyView } from "./key-view.js";

/** Every key, or one account's; `createdBy`: only the keys that dashboard user created (a member's view). */
export async function listKeys(store: Store, account: string | undefined, now: number, createdBy?: string) {
  const keys = (await store.listKeys(account)).filter((k) => createdBy === undefined || k.createdBy === createdBy);
  return Promise.all(keys.map((k) => keyView(store, k, now)));
}
