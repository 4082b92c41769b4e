/**
 * Leases (docs/fleet.md, "Leases"): three `gateway serve` processes on one PostgreSQL and one
 * Redis, each leasing slices of an account's room on busy lanes (`fleet.leaseRequests: 4`). 3N
 * concurrent requests against a balance, a key budget or a member budget covering N admit exactly
 * N, spread evenly or not; a process killed with kill -9 mid-traffic (JSON and streams) leaves
 * the money exact once its leases expired: credits = balance + charged, nothing held, every
 * ledger row's charge plus its uncollected part its list cost. Real child processes, a fake upstream.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { generateKey, hashKey, newKeyId } from "../src/access/keys.js";
import { openPostgresStore } from "../src/store/pg/index.js";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { bearer } from "./helpers/http.js";
import { completion, stream } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";
import { REDIS_URL, useRedis } from "./helpers/redis.js";
import { recordSecret } from "./helpers/secrets.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";

type Proc = Awaited<ReturnType<typeof serve>>;

// 34 prompt tokens (the byte bound of this body) × 150 + 10 × 600 = 11,100 nano-USD: the worst
// case, and (the fake reports exactly that usage) also the charge.
const BODY = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 10 };
const COST = 11_100;
const usd = (nano: number) => (nano / 1e9).toFixed(9);

const redis = useRedis();
let fake: FakeUpstream;
let db: TestDatabase;
let dir: string;
let config: string;
let procs: Proc[] = [];
const env = () => ({ GATEWAY_DB: db.url });
const cli = (...args: string[]) => gateway([...args, "--json"], { cwd: dir, env: env() });
const ask = (p: Proc, key: string, streamed = false) =>
  fetch(`${p.url}/v1/chat/completions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify(streamed ? { ...BODY, stream: true } : BODY),
  });

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream((req) =>
    (req.body as { stream?: boolean }).stream
      ? stream(["a ", "b ", "c ", "d ", "e ", "f "], { prompt_tokens: 34, completion_tokens: 10 }, { delayMs: 400 })
      : { ...completion("ok", { prompt_tokens: 34, completion_tokens: 10 }), delayMs: 300 },
  );
  db = await createTestDatabase();
  dir = tempDir();
  config = join(dir, "gateway.config.yaml");
  writeFileSync(
    config,
    [
      `providers: { openai: { baseUrl: "${fake.url}/v1", apiKey: sk-upstream-leases } }`,
      `models: [{ id: openai/gpt-4o-mini, pricing: { prompt: "0.15", completion: "0.6" }, context_length: 128000, max_output: 16384, endpoints: [{ provider: openai, model: gpt-4o-mini }] }]`,
      "fleet: { leaseSeconds: 2, leaseRequests: 4 }",
      `redis: { url: "${REDIS_URL}", prefix: "${redis.prefix}" }`,
      "limits: { key: { requests: 100000, window: 60 } }",
    ].join("\n"),
  );
  procs = await Promise.all([0, 1, 2].map(() => serve(["--config", config], { cwd: dir, env: env() })));
}, 60_000);

afterAll(async () => {
  for (const p of procs) p.proc.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.proc.catch(() => undefined)));
  await fake?.close();
  await db?.drop();
});

/** Runs `requests` while watching the holds table: how many lease rows were open at most. */
async function watchingLeases<T>(requests: Promise<T>): Promise<{ out: T; leases: number }> {
  let leases = 0;
  let done = false;
  const watch = (async () => {
    while (!done) {
      const [r] = await rows<{ n: number }>(db.url, "SELECT COUNT(*) AS n FROM holds WHERE id LIKE 'lease\\_%' AND amount > 0");
      leases = Math.max(leases, Number(r!.n));
      await sleep(20);
    }
  })();
  const out = await requests.finally(() => (done = true));
  await watch;
  return { out, leases };
}

async function admitted(keys: string[], spread: (i: number) => number, n: number) {
  const statuses = await Promise.all(Array.from({ length: 3 * n }, (_, i) => ask(procs[spread(i)]!, keys[i % keys.length]!).then((r) => r.status)));
  return { ok: statuses.filter((s) => s === 200).length, refused: statuses.filter((s) => s === 402).length };
}

/** Once the lanes went idle and gave their room back, nothing of the account is held. */
async function nothingHeld(account: string) {
  await expect
    .poll(async () => (await rows<{ held: number }>(db.url, "SELECT held FROM accounts WHERE id = ?", account))[0]!.held, { timeout: 10_000 })
    .toBe(0);
  expect(await rows(db.url, "SELECT id FROM holds WHERE account = ? AND amount > 0", account)).toEqual([]);
}

test("a balance covering N = 40: 3N concurrent requests over three leasing processes admit exactly N", async () => {
  const key = (await cli("keys", "create", "--name", "bal", "--account", "bal", "--create")).json.key as string;
  await cli("credits", "add", usd(40 * COST), "--account", "bal", "--create");
  const { out, leases } = await watchingLeases(admitted([key], (i) => i % 3, 40));
  expect(leases).toBeGreaterThan(0); // the requests were admitted against leases, not one hold each
  expect(out).toEqual({ ok: 40, refused: 80 });
  await nothingHeld("bal");
  const [a] = await rows<{ balance: number }>(db.url, "SELECT balance FROM accounts WHERE id = ?", "bal");
  const [l] = await rows<{ cost: number; u: number; n: number }>(
    db.url,
    "SELECT SUM(cost) AS cost, SUM(uncollected) AS u, COUNT(*) AS n FROM ledger WHERE account = ?",
    "bal",
  );
  // Every admitted request had its room held: each is charged in full, none uncollected.
  expect({ balance: a!.balance, charged: Number(l!.cost), uncollected: Number(l!.u), rows: Number(l!.n) }).toEqual({
    balance: 0,
    charged: 40 * COST,
    uncollected: 0,
    rows: 40,
  });
}, 60_000);

test("an uneven spread (80 % of the requests on one process): still exactly N of 3N", async () => {
  const key = (await cli("keys", "create", "--name", "uneven", "--account", "uneven", "--create")).json.key as string;
  await cli("credits", "add", usd(20 * COST), "--account", "uneven", "--create");
  expect(await admitted([key], (i) => (i % 10 < 8 ? 0 : 1 + (i % 2)), 20)).toEqual({ ok: 20, refused: 40 });
  await nothingHeld("uneven");
}, 60_000);

test("a key budget covering N = 20 (balance plenty): exactly N of 3N; the key's spend is exact", async () => {
  const created = await cli("keys", "create", "--name", "kb", "--account", "kb", "--create", "--budget", usd(20 * COST), "--budget-period", "day");
  await cli("credits", "add", "1", "--account", "kb");
  const { out, leases } = await watchingLeases(admitted([created.json.key as string], (i) => i % 3, 20));
  expect(leases).toBeGreaterThan(0);
  expect(out).toEqual({ ok: 20, refused: 40 });
  await expect.poll(async () => (await rows<{ held: number }>(db.url, "SELECT held FROM keys WHERE name = ?", "kb"))[0]!.held, { timeout: 10_000 }).toBe(0);
  expect((await rows<{ spent: number }>(db.url, "SELECT spent FROM keys WHERE name = ?", "kb"))[0]!.spent).toBe(20 * COST);
}, 60_000);

test("a member budget covering N = 20, two of their keys: exactly N of 3N; the budget's spend is exact", async () => {
  expect((await cli("users", "add", "lea@example.com", "--account", "mb", "--create")).exitCode).toBe(0);
  await cli("credits", "add", "1", "--account", "mb");
  expect((await cli("budgets", "set", usd(20 * COST), "--account", "mb", "--member", "lea@example.com")).exitCode).toBe(0);
  const store = await openPostgresStore(db.url);
  const keys: string[] = [];
  try {
    for (const name of ["lea-1", "lea-2"]) {
      const key = generateKey();
      recordSecret(key);
      const k = { id: newKeyId(), name, account: "mb", hash: hashKey(key), last4: key.slice(-4), createdAt: Date.now(), expiresAt: null, revokedAt: null };
      await store.createKey({ ...k, lastUsedAt: null, rpm: null, createdBy: "lea@example.com" });
      keys.push(key);
    }
  } finally {
    await store.close();
  }
  await sleep(300); // the keys' creation notice retires the lanes; let it arrive first
  expect(await admitted(keys, (i) => i % 3, 20)).toEqual({ ok: 20, refused: 40 });
  await expect
    .poll(async () => (await rows<{ held: number }>(db.url, "SELECT held FROM budgets WHERE account = ?", "mb"))[0]!.held, { timeout: 10_000 })
    .toBe(0);
  expect((await rows<{ spent: number }>(db.url, "SELECT spent FROM budgets WHERE account = ?", "mb"))[0]!.spent).toBe(20 * COST);
}, 60_000);

test("kill -9 of a leasing process mid-traffic (JSON and streams): after its leases expire, credits = balance + charged, nothing held", async () => {
  const key = (await cli("keys", "create", "--name", "kill", "--account", "kill", "--create")).json.key as string;
  await cli("credits", "add", "0.01", "--account", "kill", "--create");
  const victim = await serve(["--config", config], { cwd: dir, env: env() });
  let stop = false;
  const traffic = (p: Proc, streamed: boolean) =>
    (async () => {
      while (!stop)
        await ask(p, key, streamed)
          .then(
            (r) => r.text(),
            () => undefined,
          )
          .catch(() => undefined);
    })();
  const all = [victim, procs[0]!].flatMap((p) => Array.from({ length: 8 }, (_, i) => traffic(p, i % 2 === 1)));
  await expect
    .poll(async () => (await rows(db.url, "SELECT id FROM holds WHERE id LIKE 'lease\\_%' AND account = ?", "kill")).length, { timeout: 10_000 })
    .toBeGreaterThan(0);
  await sleep(2_500); // streams running, some journaled
  victim.proc.kill("SIGKILL");
  await victim.proc.catch(() => undefined);
  await sleep(500);
  stop = true;
  await Promise.all(all);
  // The victim's rows expire (lease 2 s) and are released by the others; a new process bills what its journal left.
  const next = await serve(["--config", config], { cwd: dir, env: env() });
  procs.push(next);
  await nothingHeld("kill");
  const [g] = await rows<{ credits: number }>(db.url, "SELECT SUM(amount) AS credits FROM credit_grants WHERE account = ?", "kill");
  const [a] = await rows<{ balance: number }>(db.url, "SELECT balance FROM accounts WHERE id = ?", "kill");
  const [l] = await rows<{ charged: number; n: number; odd: number }>(
    db.url,
    "SELECT SUM(cost) AS charged, COUNT(*) AS n, SUM(CASE WHEN cost + uncollected <> list_cost THEN 1 ELSE 0 END) AS odd FROM ledger WHERE account = ?",
    "kill",
  );
  expect(Number(l!.n)).toBeGreaterThan(20);
  expect(Number(l!.odd)).toBe(0);
  expect(Number(g!.credits)).toBe(a!.balance + Number(l!.charged));
}, 90_000);
