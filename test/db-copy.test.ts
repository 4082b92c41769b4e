/**
 * `gateway db copy` (docs/fleet.md): a single-file install with keys, credits, ledger rows,
 * rollups, BYOK keys, members, budgets, alerts and the audit log moves to PostgreSQL whole; every
 * CLI listing reads the same on both sides, the BYOK key still opens with the same secret, the
 * audit chain still verifies and grows, and counts and totals are checked.
 */
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";
import { recordSecret } from "./helpers/secrets.js";
import { ledgerEntry } from "./helpers/ledger-entry.js";

let dir: string;
let file: string;
let target: TestDatabase;
const on = (db: string, ...args: string[]) => gateway([...args, "--db", db, "--json"], { cwd: dir });

beforeAll(async () => {
  assertBuilt();
  dir = tempDir();
  file = join(dir, "gateway.db");
  target = await createTestDatabase();
  const key = await on(file, "keys", "create", "--name", "app", "--account", "acme", "--create", "--budget", "2", "--budget-period", "month");
  expect(key.exitCode).toBe(0);
  // The same name in another account (names are unique per account, docs/cli.md "Keys").
  expect((await on(file, "keys", "create", "--name", "app")).exitCode).toBe(0);
  expect((await on(file, "users", "add", "ops@example.com", "--account", "acme", "--admin")).exitCode).toBe(0);
  expect((await on(file, "credits", "add", "12.345678901", "--account", "acme", "--create")).exitCode).toBe(0);
  expect(
    (await gateway(["byok", "set", "openai", "--key-stdin", "--account", "acme", "--db", file], { cwd: dir, input: "sk-acme-own-openai-key-1234\n" })).exitCode,
  ).toBe(0);
  // Members, budgets at both levels, an alert webhook, thresholds: each also an audit record.
  expect((await on(file, "users", "add", "mem@example.com", "--account", "acme", "--role", "member")).exitCode).toBe(0);
  const hookSecret = "whsec-db-copy-0123456789abcdef";
  recordSecret(hookSecret);
  const hook = await on(file, "alerts", "add", "--url", "http://127.0.0.1:9/alerts", "--secret", hookSecret, "--account", "acme");
  expect(hook.exitCode).toBe(0);
  expect((await on(file, "alerts", "thresholds", "--account", "acme", "--percent", "40,90", "--low-balance", "2")).exitCode).toBe(0);
  // Ledger rows as requests leave them: one recent, one old enough to be folded into a daily rollup.
  const store = openSqliteStore(file);
  const entry = (requestId: string, createdAt: number, cost: number) =>
    ledgerEntry({
      requestId,
      createdAt,
      account: "acme",
      keyId: key.json.id as string,
      model: "openai/gpt-4o-mini",
      provider: "openai",
      promptTokens: 10,
      completionTokens: 5,
      cost,
      latencyMs: 12,
    });
  await store.settle(null, entry("req_old", Date.now() - 200 * 86_400_000, 1_000), []);
  await store.settle(null, entry("req_new", Date.now(), 4_321), [
    { requestId: "req_new", createdAt: Date.now(), provider: "openai", model: "gpt-4o-mini", outcome: "failure", httpStatus: 503, latencyMs: 3 },
    { requestId: "req_new", createdAt: Date.now(), provider: "openai", model: "gpt-4o-mini", outcome: "success", httpStatus: 200, latencyMs: 9 },
  ]);
  await store.createKey({
    id: "key_by_member",
    name: "mine",
    account: "acme",
    hash: "m".repeat(64),
    last4: "mine",
    createdAt: Date.now(),
    createdBy: "mem@example.com",
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    rpm: null,
  });
  const body = JSON.stringify({ type: "balance.low", account: "acme" });
  const delivery = { id: "dl_copy", webhookId: hook.json.id, eventKey: "balance.low:2", url: "http://127.0.0.1:9/alerts", account: "acme", body };
  expect(await store.queueDeliveries([{ ...delivery, type: "balance.low", createdAt: Date.now() }])).toBe(1);
  await store.close();
  expect((await on(file, "db", "prune")).json.rows).toBe(1);
  // Budgets last: the old request above would otherwise fall in a period already over (docs/limits.md).
  expect((await on(file, "budgets", "set", "7", "--account", "acme")).exitCode).toBe(0);
  expect((await on(file, "budgets", "set", "1.5", "--account", "acme", "--member", "mem@example.com", "--period", "day")).exitCode).toBe(0);
}, 120_000);

afterAll(async () => {
  await target?.drop();
});

test("db copy moves every row; keys, credits, usage and BYOK keys read the same from PostgreSQL", async () => {
  const copy = await gateway(["db", "copy", "--from", file, "--to", target.url, "--json"], { cwd: dir });
  expect(copy.stderr).toBe("");
  expect(copy.exitCode).toBe(0);
  expect(copy.json.ok).toBe(true);
  expect(copy.json.from).toEqual(copy.json.to);
  expect(copy.json.to.counts).toMatchObject({
    accounts: 2,
    keys: 3,
    credit_grants: 1,
    ledger: 1,
    attempts: 2,
    usage_daily: 1,
    byok_keys: 1,
    dashboard_users: 2,
    dashboard_links: 2,
    memberships: 2,
    budgets: 2,
    alert_webhooks: 1,
    alert_settings: 1,
    alert_deliveries: 1,
    audit_head: 1,
  });
  expect(copy.json.to.counts.audit_log).toBe(10); // every change above but the direct store calls
  expect(copy.json.to.balance).toBe("12.34567358"); // 12.345678901 - 0.000001000 - 0.000004321 charged
  for (const args of [
    ["keys", "list"],
    ["credits", "show", "--account", "acme"],
    ["byok", "list", "--account", "acme"],
    ["usage"],
    ["accounts", "list"],
    ["users", "list"],
    ["members", "list", "--account", "acme"],
    ["budgets", "list"],
    ["alerts", "list"],
    ["alerts", "thresholds", "--account", "acme"],
    ["alerts", "deliveries"],
    ["audit"],
  ]) {
    expect((await on(target.url, ...args)).json, args.join(" ")).toEqual((await on(file, ...args)).json);
  }
  // The member's key is still theirs (what their budget covers) on PostgreSQL too.
  const c = new pg.Client({ connectionString: target.url });
  await c.connect();
  try {
    expect((await c.query("SELECT created_by FROM keys WHERE id = 'key_by_member'")).rows).toEqual([{ created_by: "mem@example.com" }]);
  } finally {
    await c.end();
  }
}, 120_000);

test("the audit chain verifies on the copy, and grows from where the source left it", async () => {
  const records = copiedAuditCount();
  const verified = await on(target.url, "audit", "verify");
  expect(verified.exitCode).toBe(0);
  expect(verified.json).toEqual({ ok: true, verified: await records });
  // New rows after the copied ones: a new budget (its id sequence continues) and its record.
  expect((await on(target.url, "budgets", "set", "3", "--account", "acme", "--member", "ops@example.com")).exitCode).toBe(0);
  expect((await on(target.url, "audit", "verify")).json).toEqual({ ok: true, verified: (await records) + 1 });
  expect((await on(target.url, "budgets", "list", "--account", "acme")).json).toHaveLength(3);
}, 120_000);

async function copiedAuditCount(): Promise<number> {
  return (await on(file, "audit")).json.length as number;
}

test("a non-empty target is refused without --force, and replaced with it", async () => {
  const again = await gateway(["db", "copy", "--from", file, "--to", target.url], { cwd: dir });
  expect(again.exitCode).toBe(1);
  expect(again.stderr).toMatch(/not empty; add --force/);
  const forced = await gateway(["db", "copy", "--from", file, "--to", target.url, "--force", "--json"], { cwd: dir });
  expect(forced.exitCode).toBe(0);
  expect(forced.json.to.counts).toEqual(forced.json.from.counts);
  expect(forced.json.to.counts.keys).toBe(3);
  // The target's longer chain is replaced by the source's, head included.
  expect((await on(target.url, "audit", "verify")).json).toEqual({ ok: true, verified: await copiedAuditCount() });
}, 120_000);

test("db migrate is idempotent on both stores", async () => {
  const first = await on(target.url, "db", "migrate");
  expect(first.exitCode).toBe(0);
  expect(first.json.from).toBe(first.json.to);
  expect((await on(file, "db", "migrate")).exitCode).toBe(0);
});

test("the CLI refuses PostgreSQL without GATEWAY_SECRET, in one line", async () => {
  const r = await gateway(["keys", "list", "--db", target.url], { cwd: dir, env: { GATEWAY_SECRET: "" } });
  expect(r.exitCode).toBe(2);
  expect(r.stderr.trim().split("\n")).toEqual([
    "error: GATEWAY_SECRET must be set (64 hex characters, the same on every process) when the database is PostgreSQL",
  ]);
});
