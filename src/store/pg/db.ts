/**
 * The PostgreSQL connection pool and the one way the store talks to it: every wait is bounded
 * (connect, statement), and a database that cannot be reached becomes a 503 GatewayError
 * (`store_unavailable`), never a crash or a 500 (docs/fleet.md, docs/fleet.md).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { storeUnavailable } from "../../core/errors.js";
import { connectionErrorLine } from "../../core/connection-errors.js";

const CONNECT_TIMEOUT_MS = 3_000;
const STATEMENT_TIMEOUT_MS = 10_000;

export type Queryable = pg.Pool | pg.PoolClient;

export function createPool(url: string, max = 20): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS + 1_000,
    idleTimeoutMillis: 30_000,
    // A peer gone without a FIN (a NAT or firewall dropping the flow) is found by the kernel.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // A connection dropped by the server (restart, failover, reset) must not end the process: the
  // pool's own listener covers idle clients, and pg-pool removes it while a client is checked out,
  // so each client gets one too; the next query gets a new connection or a 503 (docs/fleet.md).
  const idle = connectionErrorLine("PostgreSQL pool");
  const busy = connectionErrorLine("PostgreSQL connection");
  pool.on("error", idle);
  pool.on("connect", (client) => void client.on("error", busy));
  return pool;
}

/** Errors that say the database is out of reach rather than that a statement was wrong. */
function unreachable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (
    typeof e?.code === "string" &&
    (/^(08|57P0|53)/.test(e.code) || ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EPIPE", "EHOSTUNREACH"].includes(e.code))
  )
    return true;
  return /timeout|Connection terminated|connect ECONN|Client has encountered a connection error/i.test(e?.message ?? "");
}

/**
 * An audited call's transaction (src/store/audit.ts): while it is open, the store's statements on
 * its pool, in its async context, run on its connection, so the change and its audit record
 * commit together. `open` turns false at the end, so a timer started meanwhile uses the pool.
 */
interface Ambient {
  pool: pg.Pool;
  client: pg.PoolClient;
  open: boolean;
}
const ambient = new AsyncLocalStorage<Ambient>();

const joined = (db: Queryable): pg.PoolClient | undefined => {
  const a = ambient.getStore();
  return a?.open && a.pool === db ? a.client : undefined;
};

/** `fn` in one transaction that every store statement on `pool` made within it joins. */
export function sharedTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  return transaction(pool, async (client) => {
    const a: Ambient = { pool, client, open: true };
    try {
      return await ambient.run(a, () => fn(client));
    } finally {
      a.open = false;
    }
  });
}

export async function query<R extends pg.QueryResultRow = pg.QueryResultRow>(db: Queryable, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
  try {
    return await (joined(db) ?? db).query<R>(text, values);
  } catch (err) {
    throw unreachable(err) ? storeUnavailable(err) : err;
  }
}

/** One transaction on one connection; rolled back when `fn` throws. Deadlocks and serialization failures are retried. */
export async function transaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const shared = joined(pool);
  if (shared) return fn(shared); // inside an audited call: its transaction is this one's
  for (let attempt = 1; ; attempt++) {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw storeUnavailable(err);
    }
    try {
      await client.query("BEGIN");
      const out = await fn(client);
      await client.query("COMMIT");
      return out;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      const code = (err as { code?: string }).code;
      if ((code === "40P01" || code === "40001") && attempt < 5) continue;
      throw unreachable(err) ? storeUnavailable(err) : err;
    } finally {
      client.release();
    }
  }
}

/** bigint columns arrive as strings (pg's default, exact): numbers where the interface has numbers. */
export const num = (v: string | number | null): number | null => (v === null ? null : Number(v));
export const big = (v: string | number | bigint | null): bigint => (v === null ? 0n : BigInt(v));
