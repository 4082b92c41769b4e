/**
 * Upgrading a database from before the accounts migrations (src/store/sqlite/migrations-accounts.ts,
 * src/store/pg/migrations-accounts.ts) on both stores: rows written at the old schema, then the
 * store opened (which migrates) keeps every key with its settings, the foreign key and the
 * indexes, and allows a key name per account; a member's key an admin changed (the audit log
 * says so) counts as one whose limits a manager set.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { openPostgresStore } from "../../src/store/pg/index.js";
import { accountMigrations as pgAccountMigrations } from "../../src/store/pg/migrations-accounts.js";
import { pgMigrations } from "../../src/store/pg/migrations.js";
import { accountMigrations as sqliteAccountMigrations } from "../../src/store/sqlite/migrations-accounts.js";
import { migrations as sqliteMigrations } from "../../src/store/sqlite/migrations.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import type { KeyRecord, Store } from "../../src/store/index.js";
import { tempDir } from "../helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "../helpers/services.js";

const T0 = Date.UTC(2026, 10, 20, 12);

/** What the old schema holds: two accounts, a key with every setting, written as SQL of that time. */
const OLD_ROWS = [
  `INSERT INTO accounts (id, balance, created_at) VALUES ('acme', 5, ${T0}), ('beta', 0, ${T0})`,
  `INSERT INTO keys (id, name, account, hash, last4, created_at, expires_at, revoked_at, last_used_at, rpm, budget, budget_period, spent, spent_since, cache, created_by)
     VALUES ('k1', 'ci', 'acme', 'hash-k1', 'ab12', ${T0}, ${T0 + 9}, NULL, ${T0 + 3}, 60, 2000, 'month', 700, ${T0}, 'on', 'dev@acme.example'),
       ('k0', 'mine', 'acme', 'hash-k0', 'cd34', ${T0 - 1}, NULL, NULL, NULL, NULL, NULL, 'total', 0, 0, 'off', 'dev@acme.example')`,
  // The audit log says an admin changed k1 and its creator k0: k1's limits were a manager's.
  `INSERT INTO audit_log (id, at, actor, ip, action, account, target, before, after, prev_hash, hash) VALUES
     (1, ${T0}, 'admin@acme.example', NULL, 'key.update', 'acme', 'k1', '{"rpm":null}', '{"rpm":60}', 'p1', 'h1'),
     (2, ${T0}, 'dev@acme.example', NULL, 'key.update', 'acme', 'k0', '{"rpm":null}', '{"rpm":5}', 'h1', 'h2')`,
];

const key = (id: string, name: string, account: string): KeyRecord => ({
  id,
  name,
  account,
  hash: `hash-${id}`,
  last4: id.slice(-4),
  createdAt: T0 + 1,
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  rpm: null,
});

/** What must hold once the store migrated the old rows. */
async function checkUpgraded(store: Store): Promise<void> {
  expect(await store.findKey("k1")).toMatchObject({
    name: "ci",
    account: "acme",
    hash: "hash-k1",
    last4: "ab12",
    createdAt: T0,
    expiresAt: T0 + 9,
    lastUsedAt: T0 + 3,
    rpm: 60,
    budget: 2000n,
    budgetPeriod: "month",
    cache: "on",
    createdBy: "dev@acme.example",
    limitsByManager: true,
  });
  expect((await store.findKey("k0"))?.limitsByManager).toBe(false);
  expect((await store.findKeyByHash("hash-k1"))?.id).toBe("k1");
  await store.createKey(key("k2", "ci", "beta"));
  await expect(store.createKey(key("k3", "ci", "acme"))).rejects.toThrow();
  await expect(store.createKey({ ...key("k4", "other", "acme"), hash: "hash-k1" })).rejects.toThrow();
  await expect(store.createKey(key("k5", "x", "no-such-account"))).rejects.toThrow();
  expect((await store.listKeys()).map((k) => [k.id, k.account])).toEqual([
    ["k0", "acme"],
    ["k1", "acme"],
    ["k2", "beta"],
  ]);
}

describe("SQLite", () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  test("a database from before the accounts migrations upgrades with its keys, foreign key and indexes intact", async () => {
    dir = tempDir();
    const file = join(dir, "old.db");
    const db = new Database(file);
    const before = sqliteMigrations.length - sqliteAccountMigrations.length;
    for (const m of sqliteMigrations.slice(0, before)) db.exec(m);
    db.pragma(`user_version = ${before}`);
    for (const sql of OLD_ROWS) db.exec(sql);
    db.close();

    const store = openSqliteStore(file);
    try {
      await checkUpgraded(store);
    } finally {
      await store.close();
    }
    const after = new Database(file, { readonly: true });
    try {
      expect(after.pragma("user_version", { simple: true })).toBe(sqliteMigrations.length);
      expect(after.pragma("foreign_key_check")).toEqual([]);
      expect(after.pragma("foreign_key_list(keys)")).toMatchObject([{ table: "accounts", from: "account", to: "id" }]);
      const unique = (after.pragma("index_list(keys)") as Array<{ name: string; unique: number }>).filter((i) => i.unique === 1);
      const columns = unique.map((i) => (after.pragma(`index_info(${i.name})`) as Array<{ name: string }>).map((c) => c.name).join(","));
      expect(columns.sort()).toEqual(["account,name", "hash", "id"]);
    } finally {
      after.close();
    }
  });
});

describe("PostgreSQL", () => {
  let target: TestDatabase | undefined;
  afterEach(async () => {
    await target?.drop();
    target = undefined;
  });

  test("a database from before the accounts migrations upgrades with its keys, foreign key and indexes intact", async () => {
    target = await createTestDatabase();
    const before = pgMigrations.length - pgAccountMigrations.length;
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    try {
      await c.query("BEGIN");
      await c.query("CREATE TABLE gateway_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)");
      for (let v = 0; v < before; v++) {
        await c.query(pgMigrations[v]!);
        await c.query("INSERT INTO gateway_migrations (version, applied_at) VALUES ($1, $2)", [v + 1, T0]);
      }
      for (const sql of OLD_ROWS) await c.query(sql);
      await c.query("COMMIT");
    } finally {
      await c.end();
    }

    const store = await openPostgresStore(target.url);
    try {
      await checkUpgraded(store);
    } finally {
      await store.close();
    }
    const after = new pg.Client({ connectionString: target.url });
    await after.connect();
    try {
      const { rows } = await after.query<{ def: string }>(
        "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'keys'::regclass AND contype IN ('u', 'f') ORDER BY 1",
      );
      expect(rows.map((r) => r.def)).toEqual(["FOREIGN KEY (account) REFERENCES accounts(id)", "UNIQUE (account, name)", "UNIQUE (hash)"]);
      expect((await after.query("SELECT indexname FROM pg_indexes WHERE tablename = 'keys' AND indexname = 'keys_account'")).rowCount).toBe(1);
    } finally {
      await after.end();
    }
  });
});
