/** A `database` setting that names PostgreSQL rather than a SQLite file (contract.md §7). */
export const isPostgresUrl = (database: string): boolean => /^postgres(ql)?:\/\//i.test(database);
