/** Listing keys, masked (`gateway keys list`, the dashboard's Keys page). */
import type { Store } from "../store/index.js";
import { keyView } from "./key-view.js";

/** Every key, or one account's. */
export async function listKeys(store: Store, account: string | undefined, now: number) {
  return Promise.all((await store.listKeys(account)).map((k) => keyView(store, k, now)));
}
