/**
 * One `gateway serve` per SQLite file (docs/cli.md). Holds and rate-limit windows live in
 * the serving process's memory, so two servers on one file could overspend a balance.
 *
 * A lock file beside the database holding the PID, not a SQLite-level exclusive lock: the
 * CLI (keys revoke, credits add, byok set) must keep writing to the database while `serve`
 * runs, which `locking_mode=EXCLUSIVE` would block; and a file can name the PID that holds
 * it. A lock whose process is gone (killed, crashed) is stale and taken over. Only for
 * SQLite: a PostgreSQL store would allow any number of servers.
 */
import { closeSync, linkSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { requireFilePath } from "../../core/database-url.js";

export interface DatabaseLock {
  release(): void;
}

/** Locks this process holds, so a second server in the same process is refused too. */
const held = new Set<string>();

const lockFileOf = (db: string) => `${db}.lock`;

function holderOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by someone else
  }
}

/** Creates the lock file with our PID in one step: written aside, then linked (fails if it exists). */
function tryCreate(file: string): boolean {
  const temp = `${file}.${process.pid}`;
  const fd = openSync(temp, "w", 0o600);
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    rmSync(temp, { force: true });
  }
}

export function lockDatabase(db: string): DatabaseLock {
  if (db === ":memory:") return { release: () => {} };
  requireFilePath(db); // before `<db>.lock` is written under a `scheme:` directory
  const file = lockFileOf(db);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(file)) return holdLock(file);
    const pid = holderOf(file);
    const live = pid !== undefined && (pid === process.pid ? held.has(file) : alive(pid));
    if (live) {
      throw new Error(
        `the database ${db} is in use by another gateway serve (PID ${pid}): one serve per SQLite file; stop that one first, or give this one another --db`,
      );
    }
    rmSync(file, { force: true }); // stale: its process is gone
  }
  throw new Error(`cannot take the lock ${file}: another gateway serve is starting on the same database`);
}

function holdLock(file: string): DatabaseLock {
  held.add(file);
  const release = () => {
    if (!held.delete(file)) return;
    if (holderOf(file) === process.pid) rmSync(file, { force: true });
    process.off("exit", release);
  };
  process.on("exit", release);
  return { release };
}

/** The PID of a live `serve` holding this database, for `gateway doctor`. */
export function databaseHolder(db: string): number | undefined {
  const pid = holderOf(lockFileOf(db));
  return pid !== undefined && alive(pid) ? pid : undefined;
}
