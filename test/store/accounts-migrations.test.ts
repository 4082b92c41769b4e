/**
 * Upgrading a database from before the accounts migrations (src/store/sqlite/migrations-accounts.ts,
 * src/store/pg/migrations-accounts.ts) on both stores: rows written at the old schema, then the
 * store opened (which migrates) keeps every key with its settings, the foreign key and the
 * indexes, and allows a key name per account; a member's key an admin changed (the audit log
 * says so) counts as one whose limits a manager set; a user an owner invited is scoped to that
 * owner's account (docs/dashboard.md "Invitations").
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
  // Dashboard users and who the audit log says added them (docs/dashboard.md "Invitations").
  `INSERT INTO accounts (id, balance, created_at) VALUES ('ops', 0, ${T0})`,
  `INSERT INTO dashboard_users (email, account, admin, password_hash, created_at) VALUES
     ('root@ops.example', 'ops', {TRUE}, 'scrypt$r', ${T0}),
     ('cli@acme.example', 'acme', {FALSE}, 'scrypt$c', ${T0}),
     ('invited@acme.example', 'acme', {FALSE}, 'scrypt$i', ${T0}),
     ('linked@acme.example', 'acme', {FALSE}, NULL, ${T0}),
     ('reset@acme.example', 'acme', {FALSE}, 'scrypt$o', ${T0}),
     ('resetting@acme.example', 'acme', {FALSE}, 'scrypt$i2', ${T0}),
     ('by-admin@acme.example', 'acme', {FALSE}, 'scrypt$a', ${T0}),
     ('sso@acme.example', 'acme', {FALSE}, NULL, ${T0})`,
  `INSERT INTO dashboard_links (hash, email, expires_at) VALUES ('link-owner', 'linked@acme.example', ${T0 + 100}),
     ('link-operator', 'resetting@acme.example', ${T0 + 100})`,
  `INSERT INTO audit_log (id, at, actor, ip, action, account, target, before, after, prev_hash, hash) VALUES
     (3, ${T0}, 'cli:root', NULL, 'user.add', 'acme', 'cli@acme.example', NULL, '{}', 'h2', 'h3'),
     (4, ${T0}, 'owner@acme.example', NULL, 'user.add', 'acme', 'invited@acme.example', NULL, '{}', 'h3', 'h4'),
     (5, ${T0}, 'invited@acme.example', NULL, 'user.password', 'acme', 'invited@acme.example', NULL, '{}', 'h4', 'h5'),
     (6, ${T0}, 'owner@acme.example', NULL, 'user.add', 'acme', 'linked@acme.example', NULL, '{}', 'h5', 'h6'),
     (7, ${T0}, 'owner@acme.example', NULL, 'user.add', 'acme', 'reset@acme.example', NULL, '{}', 'h6', 'h7'),
     (8, ${T0}, 'cli:root', NULL, 'user.reset', 'acme', 'reset@acme.example', NULL, '{}', 'h7', 'h8'),
     (9, ${T0}, 'reset@acme.example', NULL, 'user.password', 'acme', 'reset@acme.example', NULL, '{}', 'h8', 'h9'),
     (10, ${T0}, 'owner@acme.example', NULL, 'user.add', 'acme', 'resetting@acme.example', NULL, '{}', 'h9', 'h10'),
     (11, ${T0}, 'resetting@acme.example', NULL, 'user.password', 'acme', 'resetting@acme.example', NULL, '{}', 'h10', 'h11'),
     (12, ${T0}, 'cli:root', NULL, 'user.reset', 'acme', 'resetting@acme.example', NULL, '{}', 'h11', 'h12'),
     (13, ${T0}, 'root@ops.example', NULL, 'user.add', 'acme', 'by-admin@acme.example', NULL, '{}', 'h12', 'h13'),
     (14, ${T0}, 'sso:idp.example', NULL, 'user.add', 'acme', 'sso@acme.example', NULL, '{}', 'h13', 'h14')`,
];

/** The old rows for a store: booleans as it writes them. */
const oldRows = (sqlite: boolean) => OLD_ROWS.map((sql) => sql.replaceAll("{TRUE}", sqlite ? "1" : "true").replaceAll("{FALSE}", sqlite ? "0" : "false"));

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
  // An owner's invitation (the latest user.add by a dashboard user who is no instance admin) scopes a
  // user, unless a password was set after a later `users reset`; an outstanding link is the owner's
  // unless a reset replaced it.
  const vouched = async (email: string) => (await store.findUser(email))?.vouchedBy;
  expect(await vouched("root@ops.example")).toBeNull();
  expect(await vouched("cli@acme.example")).toBeNull();
  expect(await vouched("invited@acme.example")).toBe("acme");
  expect(await vouched("linked@acme.example")).toBe("acme");
  expect(await vouched("reset@acme.example")).toBeNull();
  expect(await vouched("resetting@acme.example")).toBe("acme");
  expect(await vouched("by-admin@acme.example")).toBeNull();
  expect(await vouched("sso@acme.example")).toBeNull();
  expect(await store.takeSignInLink("link-owner", T0)).toEqual({ email: "linked@acme.example", vouchedBy: "acme" });
  expect(await store.takeSignInLink("link-operator", T0)).toEqual({ email: "resetting@acme.example", vouchedBy: null });
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

  test("a database from before the accounts migrations upgrades: keys intact with their foreign key and indexes, managers' limits and invitations read from the audit log", async () => {
    dir = tempDir();
    const file = join(dir, "old.db");
    const db = new Database(file);
    const before = sqliteMigrations.indexOf(sqliteAccountMigrations[0]!); // later migrations (MCP, guardrails) come after them
    for (const m of sqliteMigrations.slice(0, before)) db.exec(m);
    db.pragma(`user_version = ${before}`);
    for (const sql of oldRows(true)) db.exec(sql);
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

  test("a database from before the accounts migrations upgrades: keys intact with their foreign key and indexes, managers' limits and invitations read from the audit log", async () => {
    target = await createTestDatabase();
    const before = pgMigrations.indexOf(pgAccountMigrations[0]!);
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    try {
      await c.query("BEGIN");
      await c.query("CREATE TABLE gateway_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)");
      for (let v = 0; v < before; v++) {
        await c.query(pgMigrations[v]!);
        await c.query("INSERT INTO gateway_migrations (version, applied_at) VALUES ($1, $2)", [v + 1, T0]);
      }
      for (const sql of oldRows(false)) await c.query(sql);
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
