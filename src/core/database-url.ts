import { UsageError } from "./errors.js";

/** A `database` setting that names PostgreSQL rather than a SQLite file (docs/fleet.md). */
export const isPostgresUrl = (database: string): boolean => /^postgres(ql)?:\/\//i.test(database);

/** `scheme://...`: a URL, never a file path (a path taken as is would create a `scheme:` directory). */
export const isUrl = (database: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(database);

/**
 * Refuses a URL where a SQLite file path is needed. Names only the scheme: the rest of a URL
 * may carry a password.
 */
export function requireFilePath(database: string): void {
  if (!isUrl(database)) return;
  const scheme = database.slice(0, database.indexOf(":")).toLowerCase();
  throw new UsageError(`the database is a ${scheme}:// URL: only postgres:// and postgresql:// URLs are supported, any other database is a SQLite file path`);
}
