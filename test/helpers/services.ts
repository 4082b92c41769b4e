/**
 * PostgreSQL for tests (docs/fleet.md): each test run has its own id, each gateway its own
 * database `gwt_<run>_<n>` (dropped when it closes; the run's leftovers are dropped by the global
 * teardown). A missing server fails the run with one line saying how to start it; nothing is
 * skipped. Redis: helpers/redis.ts.
 */
import pg from "pg";
import { inject } from "vitest";

export const PG_ADMIN_URL = process.env.GATEWAY_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/postgres";

export const PG_MISSING =
  "PostgreSQL is not reachable at 127.0.0.1:5432 (user postgres, trust auth): start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` (or see README, Development services)";

/** True when the suite's gateways use PostgreSQL (the `postgres` vitest project). */
export const onPostgres = (): boolean => process.env.GATEWAY_TEST_STORE === "postgres";

let counter = 0;

const urlOf = (name: string) => {
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  try {
    await c.connect();
  } catch {
    throw new Error(PG_MISSING);
  }
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database for one gateway (or one fleet), named after this run. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `gwt_${inject("runId")}_${process.pid}_${++counter}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return { url: urlOf(name), drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined) };
}

/** Drops every database a run left (a test that crashed before closing its gateway). */
export async function dropRunDatabases(runId: string): Promise<void> {
  await admin(async (c) => {
    const { rows } = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [`gwt_${runId}_%`]);
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
  });
}

export async function checkPostgres(): Promise<void> {
  await admin((c) => c.query("SELECT 1"));
}
