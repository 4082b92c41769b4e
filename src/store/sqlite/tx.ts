/**
 * Write transactions on SQLite. better-sqlite3's `db.transaction()` opens a deferred one: it
 * reads under a snapshot and asks for the write lock only at its first write, and when another
 * connection committed in between (`gateway db prune`, a backup, a second process) SQLite
 * refuses that upgrade at once with SQLITE_BUSY instead of waiting out `busy_timeout`.
 * BEGIN IMMEDIATE takes the write lock first, so the wait applies (docs/limits.md, "Another
 * writer on the file"). A store still busy past its timeout is a 503, never a 500.
 */
import type Database from "better-sqlite3";
import { storeUnavailable } from "../../core/errors.js";

/** `fn` run in a BEGIN IMMEDIATE transaction (nested calls become savepoints, as before). */
export function writeTransaction<A extends unknown[], R>(db: Database.Database, fn: (...args: A) => R): (...args: A) => R {
  const tx = db.transaction(fn);
  return (...args: A) => tx.immediate(...args);
}

/** SQLITE_BUSY and SQLITE_LOCKED with their extended codes: another connection holds the lock. */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

/** A busy store as the client sees it: 503 `store_unavailable`, other errors as they are. */
export function busyAsUnavailable(err: unknown): unknown {
  return isBusy(err) ? storeUnavailable(err) : err;
}
