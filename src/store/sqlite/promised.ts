/**
 * The SQLite store is synchronous underneath (better-sqlite3); the Store interface answers
 * with promises so a networked store can implement it too. This turns the synchronous
 * methods into promise-returning ones without a per-call closure: a thrown error becomes a
 * rejected promise, as it would from a networked store; a store busy past its timeout rejects
 * with 503 `store_unavailable` (./tx.ts).
 */
import type { Store } from "../index.js";
import { busyAsUnavailable } from "./tx.js";

/** The Store with every promise-returning method allowed to answer synchronously. */
export type SyncStore = {
  [K in keyof Store]: Store[K] extends (...a: infer A) => Promise<infer R> ? (...a: A) => R | Promise<R> : Store[K];
};

/** Members that are not promises: passed through as they are. */
const PLAIN = new Set<string>(["kind", "watch", "audited"]);

export function promised(sync: SyncStore): Store {
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(sync)) {
    if (PLAIN.has(name) || typeof member !== "function") {
      out[name] = member;
      continue;
    }
    const fn = member as (...a: unknown[]) => unknown;
    out[name] = (...a: unknown[]) => {
      try {
        return Promise.resolve(fn(...a));
      } catch (err) {
        return Promise.reject(busyAsUnavailable(err));
      }
    };
  }
  return out as unknown as Store;
}
