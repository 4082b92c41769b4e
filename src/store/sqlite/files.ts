/**
 * File modes of the SQLite database. It holds key hashes, balances, the ledger and encrypted
 * BYOK keys, so it and its WAL journals are the owner's alone (0600), whatever the umask.
 */
import { chmodSync, closeSync, fchmodSync, openSync, statSync } from "node:fs";

const PRIVATE = 0o600;
/** Any permission bit for group or others. */
const SHARED_BITS = 0o077;

const journalsOf = (db: string): string[] => [`${db}-wal`, `${db}-shm`];

function modeOf(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
}

/**
 * Creates an empty database file 0600 before SQLite opens it (SQLite would create it 0644
 * under the usual umask). An existing file is left as it is: its mode is the operator's.
 */
export function createPrivateFile(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, "wx", PRIVATE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return;
    throw err;
  }
  try {
    fchmodSync(fd, PRIVATE); // openSync's mode is narrowed by the umask, never widened: set it outright
  } finally {
    closeSync(fd);
  }
}

/**
 * SQLite gives new -wal/-shm files the database's mode; journals left by an older version
 * or another tool may still be wider. When the database is private, so are its journals.
 */
export function tightenJournals(db: string): void {
  const mode = modeOf(db);
  if (mode === undefined || (mode & SHARED_BITS) !== 0) return;
  for (const journal of journalsOf(db)) {
    const m = modeOf(journal);
    if (m !== undefined && (m & SHARED_BITS) !== 0) chmodSync(journal, PRIVATE);
  }
}

/** One line for stderr naming every state file that group or others may open, or undefined. */
export function fileModeWarning(db: string): string | undefined {
  const wide = [db, ...journalsOf(db), `${db}.secret`]
    .map((file) => ({ file, mode: modeOf(file) }))
    .filter((f): f is { file: string; mode: number } => f.mode !== undefined && (f.mode & SHARED_BITS) !== 0);
  if (wide.length === 0) return undefined;
  const list = wide.map((f) => `${f.file} (${f.mode.toString(8).padStart(4, "0")})`).join(", ");
  return `warning: database files open to group/others: ${list}; they hold balances, the ledger and key material: chmod 600 ${wide.map((f) => f.file).join(" ")}`;
}
