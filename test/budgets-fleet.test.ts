/**
 * Account, member and key budgets across a fleet (docs/limits.md "Budgets", docs/fleet.md): two
 * `gateway serve` processes on one PostgreSQL and one Redis; 3N concurrent requests split over
 * both against a budget covering N admit exactly N, and the spend is exact. Also `gateway
 * budgets set|remove|list` as a script drives them. Real child processes, a fake upstream.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { generateKey, hashKey, newKeyId } from "../src/access/keys.js";
import { openPostgresStore } from "../src/store/pg/index.js";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";
import { REDIS_URL, useRedis } from "./helpers/redis.js";
import { recordSecret } from "./helpers/secrets.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";

type Proc = Awaited<ReturnType<typeof serve>>;

// 34 prompt tokens × 150 + 10 × 600 = 11,100 nano-USD: the worst case and (the fake reports it) the charge.
const BODY = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 10 };
const COST = 11_100;
const N = 5;

const redis = useRedis();
let fake: FakeUpstream;
let db: TestDatabase;
let dir: string;
let procs: Proc[] = [];
const env = () => ({ GATEWAY_DB: db.url });
const cli = (...args: string[]) => gateway(args, { cwd: dir, env: env() });
const ask = (p: Proc, key: string) =>
  fetch(`${p.url}/v1/chat/completions`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify(BODY) });

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream(() => ({ ...completion("ok", { prompt_tokens: 34, completion_tokens: 10 }), delayMs: 150 }));
  db = await createTestDatabase();
  dir = tempDir();
  writeFileSync(
    join(dir, "gateway.config.yaml"),
    [
      `providers: { openai: { baseUrl: "${fake.url}/v1", apiKey: sk-upstream-budgets } }`,
      `models: [{ id: openai/gpt-4o-mini, pricing: { prompt: "0.15", completion: "0.6" }, context_length: 128000, max_output: 16384, endpoints: [{ provider: openai, model: gpt-4o-mini }] }]`,
      `redis: { url: "${REDIS_URL}", prefix: "${redis.prefix}" }`,
      "limits: { key: { requests: 10000, window: 60 } }",
    ].join("\n"),
  );
  procs = await Promise.all([0, 1].map(() => serve(["--config", join(dir, "gateway.config.yaml")], { cwd: dir, env: env() })));
}, 60_000);

afterAll(async () => {
  for (const p of procs) p.proc.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.proc));
  await fake?.close();
  await db?.drop();
});

async function spread(key: string) {
  const statuses = await Promise.all(Array.from({ length: 3 * N }, (_, i) => ask(procs[i % 2]!, key).then((r) => r.status)));
  return { ok: statuses.filter((s) => s === 200).length, refused: statuses.filter((s) => s === 402).length };
}

test("an account budget covering N: 3N requests over two processes admit exactly N; budgets list shows the exact spend", async () => {
  const key = (await cli("keys", "create", "--name", "fleet-a", "--account", "fa", "--create", "--json")).json.key as string;
  await cli("credits", "add", "1", "--account", "fa");
  const set = await cli("budgets", "set", `0.0000${N * 111}`, "--account", "fa", "--period", "day", "--json");
  expect(set.exitCode).toBe(0);
  expect(set.json).toEqual({ account: "fa", member: null, level: "account", limit: "0.0000555", period: "day", spent: "0", remaining: "0.0000555" });
  expect(await spread(key)).toEqual({ ok: N, refused: 2 * N });
  expect((await cli("budgets", "list", "--account", "fa", "--json")).json).toEqual([
    { account: "fa", member: null, level: "account", limit: "0.0000555", period: "day", spent: "0.0000555", remaining: "0" },
  ]);
  const [b] = await rows<{ held: number }>(db.url, "SELECT held FROM budgets WHERE account = ?", "fa");
  expect(b!.held).toBe(0);
}, 60_000);

test("a member budget covering N: 3N requests from two of their keys over two processes admit exactly N", async () => {
  expect((await cli("users", "add", "mia@example.com", "--account", "fm", "--create")).exitCode).toBe(0);
  await cli("credits", "add", "1", "--account", "fm");
  expect((await cli("budgets", "set", "0.0000555", "--account", "fm", "--member", "mia@example.com", "--json")).json).toMatchObject({
    level: "member",
    period: "month",
  });
  const store = await openPostgresStore(db.url);
  const keys: string[] = [];
  try {
    for (const name of ["mia-1", "mia-2"]) {
      const key = generateKey();
      recordSecret(key);
      const k = { id: newKeyId(), name, account: "fm", hash: hashKey(key), last4: key.slice(-4), createdAt: Date.now(), expiresAt: null, revokedAt: null };
      await store.createKey({ ...k, lastUsedAt: null, rpm: null, createdBy: "mia@example.com" });
      keys.push(key);
    }
  } finally {
    await store.close();
  }
  const statuses = await Promise.all(Array.from({ length: 3 * N }, (_, i) => ask(procs[i % 2]!, keys[i % 2]!).then((r) => r.status)));
  expect(statuses.filter((s) => s === 200)).toHaveLength(N);
  const [b] = await rows<{ spent: number; held: number }>(db.url, "SELECT spent, held FROM budgets WHERE account = ?", "fm");
  expect(b).toEqual({ spent: N * COST, held: 0 });
}, 60_000);

test("a key budget covering N: 3N requests over two processes admit exactly N", async () => {
  const created = await cli("keys", "create", "--name", "fleet-k", "--account", "fk", "--create", "--budget", "0.0000555", "--budget-period", "day", "--json");
  expect(created.exitCode).toBe(0);
  await cli("credits", "add", "1", "--account", "fk");
  expect(await spread(created.json.key as string)).toEqual({ ok: N, refused: 2 * N });
  const [k] = await rows<{ spent: number; held: number }>(db.url, "SELECT spent, held FROM keys WHERE name = ?", "fleet-k");
  expect(k).toEqual({ spent: N * COST, held: 0 });
}, 60_000);

test("budgets set|remove|list: --json, a member who is not one refused, exit codes", async () => {
  await cli("credits", "add", "1", "--account", "cl", "--create");
  expect((await cli("budgets", "set", "10", "--account", "cl", "--period", "total", "--json")).json).toMatchObject({ limit: "10", period: "total" });
  const notMember = await cli("budgets", "set", "1", "--account", "cl", "--member", "nobody@example.com");
  expect(notMember.exitCode).toBe(1);
  expect(notMember.stderr).toContain("'nobody@example.com' is not a member of account 'cl'");
  expect((await cli("budgets", "set", "1", "--account", "cl", "--period", "year")).exitCode).toBe(2);
  expect((await cli("budgets", "set", "1")).exitCode).toBe(2); // --account is required
  const text = await cli("budgets", "list", "--account", "cl");
  expect(text.stdout).toMatch(/ACCOUNT\s+MEMBER\s+LIMIT\s+PERIOD\s+SPENT\s+REMAINING/);
  expect(text.stdout).toMatch(/cl\s+-\s+\$10\s+total\s+\$0\s+\$10/);
  expect((await cli("budgets", "remove", "--account", "cl", "--json")).json).toEqual({ account: "cl", member: null, removed: true });
  expect((await cli("budgets", "remove", "--account", "cl")).exitCode).toBe(1);
  expect((await cli("budgets", "list", "--account", "cl", "--json")).json).toEqual([]);
  expect((await cli("budgets", "list", "--account", "typo", "--json")).exitCode).toBe(1);
}, 90_000);
