/**
 * `gateway db copy --from <sqlite file> --to <postgres url>` (docs/fleet.md): every row of a
 * single-file install into an empty PostgreSQL database in one transaction (keys, accounts and
 * balances, grants, the ledger and its rollups and attempts, BYOK keys, MCP servers and grants, the catalog and the operator's model prices, stored
 * responses, the in-flight journal, dashboard users, their memberships, sessions and sign-in
 * links, account and member budgets, alert webhooks, thresholds and deliveries, and the audit
 * log with its chain head, ids and hashes unchanged so `gateway audit verify` passes on the
 * copy), then counts and balance totals read back from both sides for the caller to compare.
 * Sealed values (BYOK keys, webhook secrets: store/sealed.ts) go through the caller's `reseal`,
 * which opens them with the source's secret and seals them with the target's, or refuses
 * before anything is written.
 */
import Database from "better-sqlite3";
import type pg from "pg";
import { createPool } from "./pg/db.js";
import { migratePg } from "./pg/migrate.js";
import { openSqliteStore } from "./sqlite/index.js";
import { SEALED, sqliteSealedRows, type SealedRow } from "./sealed.js";

/**
 * Tables in foreign-key order; `bool` columns are 0/1 integers on SQLite; `seeded` tables hold a
 * row the target's migrations put there (the empty audit chain's head), replaced by the source's.
 */
const TABLES: Array<{ name: string; columns: string[]; bool?: string[]; serial?: boolean; seeded?: boolean }> = [
  { name: "accounts", columns: ["id", "balance", "created_at"] },
  {
    name: "keys",
    columns: [
      "id",
      "name",
      "account",
      "hash",
      "last4",
      "created_at",
      "expires_at",
      "revoked_at",
      "last_used_at",
      "rpm",
      "budget",
      "budget_period",
      "spent",
      "spent_since",
      "cache",
      "created_by",
      "limits_by_manager",
      "mcp",
      "guardrails",
    ],
    bool: ["limits_by_manager"],
  },
  { name: "credit_grants", columns: ["id", "account", "amount", "created_at", "kind", "reason", "actor"], serial: true },
  {
    name: "ledger",
    columns: [
      "id",
      "request_id",
      "created_at",
      "account",
      "key_id",
      "model",
      "provider",
      "prompt_tokens",
      "completion_tokens",
      "cost",
      "list_cost",
      "byok",
      "usage_source",
      "status",
      "http_status",
      "latency_ms",
      "attempts",
      "endpoint",
      "uncollected",
      "tags",
      "reported_prompt_tokens",
      "reported_completion_tokens",
      "tool_calls",
      "reported_tool_calls",
      "tool_cost",
      "bytes_in",
      "bytes_out",
    ],
    bool: ["byok"],
    serial: true,
  },
  { name: "attempts", columns: ["id", "request_id", "created_at", "provider", "model", "outcome", "http_status", "latency_ms"], serial: true },
  {
    name: "usage_daily",
    columns: [
      "day",
      "account",
      "key_id",
      "model",
      "byok",
      "endpoint",
      "requests",
      "prompt_tokens",
      "completion_tokens",
      "cost",
      "list_cost",
      "uncollected",
      "cache_hits",
      "cache_saved",
      "bounded",
      "tool_cost",
    ],
    bool: ["byok"],
  },
  { name: "usage_daily_tags", columns: ["day", "account", "name", "value", "requests", "prompt_tokens", "completion_tokens", "cost"] },
  { name: "byok_keys", columns: ["account", "provider", "secret", "last4", "updated_at"] },
  { name: "catalog", columns: ["id", "owned_by", "prompt_price", "completion_price", "context_length", "max_output", "endpoints", "source", "created"] },
  {
    name: "model_prices",
    columns: ["id", "origin", "prompt", "completion", "cache_read", "cache_write", "context_length", "max_output", "source", "updated_at"],
  },
  { name: "mcp_servers", columns: ["name", "url", "headers", "header_names", "tools", "timeout_ms", "price_per_call", "created_at"] },
  { name: "mcp_grants", columns: ["account", "server", "tools", "created_at"] },
  { name: "responses", columns: ["id", "account", "created_at", "model", "previous_id", "items", "response"] },
  { name: "dashboard_users", columns: ["email", "account", "admin", "password_hash", "created_at", "vouched_by"], bool: ["admin"] },
  { name: "memberships", columns: ["email", "account", "role", "created_at"] },
  { name: "dashboard_sessions", columns: ["hash", "email", "created_at", "expires_at", "last_seen_at"] },
  { name: "dashboard_links", columns: ["hash", "email", "expires_at", "vouched_by"] },
  { name: "budgets", columns: ["id", "account", "member", "amount", "period", "spent", "spent_since"], serial: true },
  { name: "alert_webhooks", columns: ["id", "account", "url", "secret", "created_at"] },
  { name: "alert_settings", columns: ["account", "percents", "low_balance", "updated_at"] },
  {
    name: "alert_deliveries",
    columns: [
      "id",
      "webhook_id",
      "event_key",
      "url",
      "account",
      "type",
      "body",
      "status",
      "attempts",
      "last_status",
      "next_attempt_at",
      "created_at",
      "delivered_at",
    ],
  },
  { name: "audit_log", columns: ["id", "at", "actor", "ip", "action", "account", "target", "before", "after", "prev_hash", "hash"] },
  { name: "audit_head", columns: ["one", "last_id", "last_hash"], seeded: true },
];

const BATCH = 500;

export interface CopySide {
  counts: Record<string, number>;
  /** Sum of balances, nano-USD, exact. */
  balance: bigint;
  /** Sum of ledger and rollup charges, nano-USD. */
  charged: bigint;
}

class TargetNotEmptyError extends Error {}

/**
 * Given every sealed value of the source, the function that seals one again for the target; it
 * throws (nothing is written yet) when it cannot open one.
 */
export type Resealer = (rows: SealedRow[]) => (row: SealedRow) => Buffer;

export async function copySqliteToPostgres(
  file: string,
  url: string,
  force: boolean,
  reseal: Resealer,
): Promise<{ from: CopySide; to: CopySide; resealed: SealedRow[] }> {
  await openSqliteStore(file).close(); // brings an older file to the current schema first
  const src = new Database(file, { readonly: true, fileMustExist: true });
  const sealed = sqliteSealedRows(src);
  let again: (row: SealedRow) => Buffer;
  try {
    again = reseal(sealed);
  } catch (err) {
    src.close();
    throw err;
  }
  src.defaultSafeIntegers(true); // balances above 2^53 stay exact
  const pool = createPool(url, 2);
  try {
    await migratePg(pool);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const existing = await client.query<{ n: string }>(
        "SELECT (SELECT COUNT(*) FROM accounts) + (SELECT COUNT(*) FROM keys) + (SELECT COUNT(*) FROM ledger) AS n",
      );
      if (Number(existing.rows[0]!.n) > 0) {
        if (!force) throw new TargetNotEmptyError("the target database is not empty; add --force to replace what it holds");
        await client.query(
          `TRUNCATE ${[...TABLES]
            .reverse()
            .map((t) => t.name)
            .join(", ")}, holds, inflight CASCADE`,
        );
      }
      for (const t of TABLES) await copyTable(src, client, t, again);
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    return { from: sqliteSide(src), to: await pgSide(pool), resealed: sealed };
  } finally {
    src.close();
    await pool.end();
  }
}

async function copyTable(src: Database.Database, client: pg.PoolClient, t: (typeof TABLES)[number], again: (row: SealedRow) => Buffer): Promise<void> {
  if (t.seeded) await client.query(`DELETE FROM ${t.name}`);
  const rows = src
    .prepare(`SELECT ${t.columns.join(", ")} FROM ${t.name}`)
    .raw()
    .iterate() as Iterable<unknown[]>;
  const resealed = sealedColumn(t, again);
  const bools = new Set((t.bool ?? []).map((c) => t.columns.indexOf(c)));
  let batch: unknown[][] = [];
  const flush = async () => {
    if (!batch.length) return;
    const values: unknown[] = [];
    const tuples = batch.map((r) => `(${r.map((v) => `$${values.push(v)}`).join(", ")})`);
    await client.query(`INSERT INTO ${t.name} (${t.columns.join(", ")}) VALUES ${tuples.join(", ")}`, values);
    batch = [];
  };
  for (const row of rows) {
    batch.push(resealed(row).map((v, i) => (bools.has(i) ? v === 1n || v === 1 : typeof v === "bigint" ? v.toString() : v)));
    if (batch.length === BATCH) await flush();
  }
  await flush();
  // Copied ids keep their values: the sequence continues after the largest.
  if (t.serial) await client.query(`SELECT setval(pg_get_serial_sequence('${t.name}', 'id'), COALESCE((SELECT MAX(id) FROM ${t.name}), 0) + 1, false)`);
}

/** For a table with a sealed column, a row with that value sealed again; any other row as it is. */
function sealedColumn(t: (typeof TABLES)[number], again: (row: SealedRow) => Buffer): (row: unknown[]) => unknown[] {
  const s = SEALED.find((x) => x.table === t.name);
  if (!s) return (row) => row;
  const at = t.columns.indexOf(s.column);
  const owner = s.owner.map((c) => t.columns.indexOf(c));
  // A null (a stored MCP server without headers) has nothing sealed.
  return (row) => row.map((v, i) => (i === at && v !== null ? again({ kind: s.kind, owner: owner.map((o) => String(row[o])), sealed: v as Buffer }) : v));
}

function sqliteSide(db: Database.Database): CopySide {
  const one = (sql: string) => db.prepare(sql).pluck().get() as bigint;
  return {
    counts: Object.fromEntries(TABLES.map((t) => [t.name, Number(one(`SELECT COUNT(*) FROM ${t.name}`))])),
    balance: one("SELECT COALESCE(SUM(balance), 0) FROM accounts"),
    charged: one("SELECT COALESCE(SUM(cost), 0) FROM ledger") + one("SELECT COALESCE(SUM(cost), 0) FROM usage_daily"),
  };
}

async function pgSide(pool: pg.Pool): Promise<CopySide> {
  const one = async (sql: string) => BigInt((await pool.query<{ v: string }>(sql)).rows[0]!.v);
  const counts: Record<string, number> = {};
  for (const t of TABLES) counts[t.name] = Number(await one(`SELECT COUNT(*) AS v FROM ${t.name}`));
  return {
    counts,
    balance: await one("SELECT COALESCE(SUM(balance), 0) AS v FROM accounts"),
    charged: (await one("SELECT COALESCE(SUM(cost), 0) AS v FROM ledger")) + (await one("SELECT COALESCE(SUM(cost), 0) AS v FROM usage_daily")),
  };
}
