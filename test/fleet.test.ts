/**
 * Several `gateway serve` processes on one PostgreSQL database and one Redis (docs/fleet.md):
 * started at once on an empty database, they migrate it without error; a key's limit and money
 * spread over the three are exact; a key revoked from the CLI is refused by all three within 1 s; a process killed
 * while holding requests strands nothing once its leases expire. Real child processes, real
 * PostgreSQL, a fake upstream on loopback.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";
import { REDIS_URL, useRedis } from "./helpers/redis.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";

type Proc = Awaited<ReturnType<typeof serve>>;

// 34 prompt tokens (the byte bound of this body) × 150 + 10 × 600 = 11,100 nano-USD: the
// worst case, and (the fake reports exactly that usage) also the charge.
const BODY = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 10 };
const COST = 11_100n;

const redis = useRedis();
let fake: FakeUpstream;
let db: TestDatabase;
let dir: string;
let procs: Proc[] = [];
const env = () => ({ GATEWAY_DB: db.url });
const cli = (...args: string[]) => gateway([...args, "--json"], { cwd: dir, env: env() });
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
      `providers: { openai: { baseUrl: "${fake.url}/v1", apiKey: sk-upstream-fleet } }`,
      `models: [{ id: openai/gpt-4o-mini, pricing: { prompt: "0.15", completion: "0.6" }, context_length: 128000, max_output: 16384, endpoints: [{ provider: openai, model: gpt-4o-mini }] }]`,
      "fleet: { leaseSeconds: 2 }",
      `redis: { url: "${REDIS_URL}", prefix: "${redis.prefix}" }`,
      "limits: { key: { requests: 10000, window: 60 } }",
    ].join("\n"),
  );
  // Three processes started at once on the empty database: each migrates under the advisory lock.
  procs = await Promise.all([0, 1, 2].map(() => serve(["--config", join(dir, "gateway.config.yaml")], { cwd: dir, env: env() })));
}, 60_000);

afterAll(async () => {
  for (const p of procs) p.proc.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.proc));
  await fake?.close();
  await db?.drop();
});

test("three processes started at once migrate one empty database, once", async () => {
  const applied = await rows<{ version: number }>(db.url, "SELECT version FROM gateway_migrations ORDER BY version");
  expect(applied.map((r) => r.version)).toEqual(applied.map((_, i) => i + 1));
  expect(applied.length).toBeGreaterThan(0);
  for (const p of procs) expect((await fetch(`${p.url}/v1/health/providers`)).status).toBe(200);
});

test("30 concurrent requests over three processes on a balance that covers exactly 5: exactly 5 answered, never below zero", async () => {
  const key = (await cli("keys", "create", "--name", "five", "--account", "five", "--create")).json.key as string;
  expect((await cli("credits", "add", "0.0000555", "--account", "five", "--create")).json.balance).toBe("0.0000555");
  const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => ask(procs[i % 3]!, key).then((r) => r.status)));
  expect(statuses.filter((s) => s === 200)).toHaveLength(5);
  expect(statuses.filter((s) => s === 402)).toHaveLength(25);
  const [account] = await rows<{ balance: number; held: number }>(db.url, "SELECT balance, held FROM accounts WHERE id = ?", "five");
  expect(account).toEqual({ balance: 0, held: 0 });
  const [sum] = await rows<{ cost: number; n: number }>(db.url, "SELECT COALESCE(SUM(cost), 0) AS cost, COUNT(*) AS n FROM ledger WHERE account = ?", "five");
  expect(BigInt(sum!.cost)).toBe(5n * COST); // the ledger's sum is the balance change
});

test("a key limited to 10 requests, hit by 30 concurrent requests spread over the three: exactly 10 answered", async () => {
  const key = (await cli("keys", "create", "--name", "ten", "--account", "ten", "--create", "--rpm", "10")).json.key as string;
  await cli("credits", "add", "10", "--account", "ten", "--create");
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => ask(procs[i % 3]!, key)));
  expect(answers.filter((r) => r.status === 200)).toHaveLength(10);
  expect(answers.filter((r) => r.status === 429)).toHaveLength(20);
  const remaining = answers
    .filter((r) => r.status === 200)
    .map((r) => Number(r.headers.get("x-ratelimit-remaining")))
    .sort((a, b) => a - b);
  expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  for (const p of procs) expect(((await (await fetch(`${p.url}/v1/health/providers`)).json()) as { limits: string }).limits).toBe("shared");
});

test("a key revoked from the CLI is refused by all three processes within 1 s", async () => {
  const key = (await cli("keys", "create", "--name", "soon-revoked")).json.key as string;
  await cli("credits", "add", "1");
  for (const p of procs) expect((await fetch(`${p.url}/v1/models`, { headers: bearer(key) })).status).toBe(200);
  expect((await cli("keys", "revoke", "soon-revoked")).exitCode).toBe(0);
  const revokedAt = Date.now();
  const refusedAfter = await Promise.all(
    procs.map(async (p) => {
      while (Date.now() - revokedAt < 3_000) {
        if ((await fetch(`${p.url}/v1/models`, { headers: bearer(key) })).status === 401) return Date.now() - revokedAt;
        await new Promise((r) => setTimeout(r, 20));
      }
      return Infinity;
    }),
  );
  for (const ms of refusedAfter) expect(ms).toBeLessThan(1_000);
});

test("credits added from the CLI are live in every process within 5 s, without restart", async () => {
  const key = (await cli("keys", "create", "--name", "late-credits", "--account", "late", "--create")).json.key as string;
  for (const p of procs) expect((await ask(p, key)).status).toBe(402);
  await cli("credits", "add", "1", "--account", "late", "--create");
  for (const p of procs) await expect.poll(async () => (await ask(p, key)).status, { timeout: 5_000 }).toBe(200);
});

describe("a process killed while holding requests", () => {
  test("strands no money once its leases expire: the other processes release its holds", async () => {
    const key = (await cli("keys", "create", "--name", "killed", "--account", "killed", "--create")).json.key as string;
    await cli("credits", "add", "0.0000333", "--account", "killed", "--create"); // three worst cases
    fake.queue(...[0, 1, 2].map(() => ({ ...completion("slow", { prompt_tokens: 34, completion_tokens: 10 }), delayMs: 30_000 })));
    const victim = await serve(["--config", join(dir, "gateway.config.yaml")], { cwd: dir, env: env() });
    const inFlight = [0, 1, 2].map(() => ask(victim, key).catch(() => undefined));
    await expect.poll(async () => (await rows<{ held: number }>(db.url, "SELECT held FROM accounts WHERE id = ?", "killed"))[0]!.held).toBe(33_300);
    expect((await ask(procs[0]!, key)).status).toBe(402); // all of it is held by the victim
    victim.proc.kill("SIGKILL");
    await Promise.all(inFlight);
    // Lease 2 s, renewed every 2/3 s, swept by the others on the same period: released within two leases.
    const killedAt = Date.now();
    await expect
      .poll(async () => (await rows<{ held: number }>(db.url, "SELECT held FROM accounts WHERE id = ?", "killed"))[0]!.held, { timeout: 10_000, interval: 100 })
      .toBe(0);
    expect(Date.now() - killedAt).toBeLessThan(6_000);
    expect(await rows(db.url, "SELECT id FROM holds WHERE account = ?", "killed")).toEqual([]);
    // The whole balance is usable again, by any process.
    const statuses = await Promise.all([0, 1, 2, 0].map((i) => ask(procs[i]!, key).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
  }, 40_000);
});
