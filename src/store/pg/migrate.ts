/**
 * Applies the PostgreSQL migrations (pg/migrations.ts) in order, each in its own transaction, under a
 * transaction-level advisory lock: processes starting together (`gateway serve` on several
 * hosts) queue on the lock and find the work done. Idempotent: `gateway db migrate` may run
 * any number of times.
 */
import type pg from "pg";
import { pgMigrations } from "./migrations.js";

/** An arbitrary constant: the advisory lock that serializes migrations of one database. */
const MIGRATION_LOCK = 7_263_514_902;

export async function migratePg(pool: pg.Pool): Promise<{ from: number; to: number }> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query("CREATE TABLE IF NOT EXISTS gateway_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)");
    const { rows } = await client.query<{ v: number | null }>("SELECT MAX(version) AS v FROM gateway_migrations");
    const from = rows[0]?.v ?? 0;
    for (let v = from; v < pgMigrations.length; v++) {
      await client.query(pgMigrations[v]!);
      await client.query("INSERT INTO gateway_migrations (version, applied_at) VALUES ($1, $2)", [v + 1, Date.now()]);
    }
    await client.query("COMMIT");
    return { from, to: pgMigrations.length };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
