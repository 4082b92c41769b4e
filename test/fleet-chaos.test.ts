/**
 * Issue "A fleet process dies when its PostgreSQL connections are reset" (docs/fleet.md,
 * "Connection errors never end a process"): three `gateway serve` processes share one PostgreSQL
 * and one Redis, each reached through a relay the test controls. Under streaming load, ten
 * rounds of: PostgreSQL frozen, every connection reset, restored; then the same for Redis.
 * Afterwards no process exited, every request got 200 or 503 store_unavailable, every delivered
 * stream is billed exactly once, and a key revoked after the last round is refused by all three
 * within 1 s.
 */
import { writeFileSync } from "node:fs";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { bearer } from "./helpers/http.js";
import { stream } from "./helpers/openai-wire.js";
import { REDIS_URL, dropPrefix, requireRedis, testPrefix } from "./helpers/redis.js";
import { startRelay, type Relay } from "./helpers/relay.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";

const ROUNDS = 10;
let fake: FakeUpstream;
let db: TestDatabase;
let pgRelay: Relay;
let redisRelay: Relay;
let dir: string;
let env: Record<string, string>;
const prefix = testPrefix();
const procs: Array<Awaited<ReturnType<typeof serve>>> = [];

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream(() => stream(["a ", "b ", "c ", "d "], { prompt_tokens: 10, completion_tokens: 4 }, { delayMs: 60 }));
  db = await createTestDatabase();
  pgRelay = await startRelay(db.url);
  redisRelay = await startRelay(REDIS_URL);
  dir = tempDir();
  env = { FAKE_URL: fake.url };
  writeFileSync(
    join(dir, "gateway.config.yaml"),
    [
      `database: ${pgRelay.url}`,
      `redis: { url: "${redisRelay.url}", prefix: "${prefix}" }`,
      "providers:",
      "  openai: { baseUrl: ${FAKE_URL}/v1, apiKey: sk-upstream-chaos }",
      "models:",
      "  - id: openai/gpt-4o-mini",
      "    pricing: { prompt: 1, completion: 2 }",
      "    endpoints: [{ provider: openai, model: gpt-4o-mini }]",
    ].join("\n"),
  );
  for (let i = 0; i < 3; i++) procs.push(await serve([], { cwd: dir, env }));
}, 60_000);

afterAll(async () => {
  for (const p of procs) p.proc.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.proc));
  await pgRelay?.close();
  await redisRelay?.close();
  await fake?.close();
  await db?.drop();
  const redis = await requireRedis();
  await dropPrefix(redis, prefix);
  redis.disconnect();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  status: number;
  code?: string;
  id?: string;
  done?: boolean;
}

async function streamOnce(url: string, key: string): Promise<Outcome> {
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 200) return { status: res.status, code: (JSON.parse(text) as { error: { code: string } }).error.code };
    return { status: 200, id: res.headers.get("x-request-id")!, done: text.includes("data: [DONE]") };
  } catch (err) {
    return { status: -1, code: String(err) };
  }
}

/** Keeps `per` streams going on every process until `stop` resolves. */
function load(key: string, stop: Promise<void>, per = 3): Promise<Outcome[]> {
  const out: Outcome[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  const worker = async (url: string) => {
    while (!stopped) out.push(await streamOnce(url, key));
  };
  return Promise.all(procs.flatMap((p) => Array.from({ length: per }, () => worker(p.url)))).then(() => out);
}

async function chaos(relay: Relay): Promise<void> {
  relay.freeze();
  await sleep(400);
  relay.reset();
  relay.thaw();
  await sleep(600);
}

test("ten rounds of PostgreSQL and Redis frozen then reset: no process exits, every stream is billed once, revocation still reaches all", async () => {
  const key = (await gateway(["keys", "create", "--name", "chaos", "--json"], { cwd: dir, env })).json.key as string;
  expect((await gateway(["credits", "add", "100", "--json"], { cwd: dir, env })).exitCode).toBe(0);
  let end!: () => void;
  const running = load(key, new Promise<void>((r) => (end = r)));
  for (let round = 0; round < ROUNDS; round++) {
    await chaos(pgRelay);
    await chaos(redisRelay);
  }
  end();
  const outcomes = await running;

  for (const p of procs) expect(p.proc.exitCode, "a gateway process exited").toBeNull();
  const odd = outcomes.filter((o) => o.status !== 200 && !(o.status === 503 && o.code === "store_unavailable"));
  expect(odd).toEqual([]);
  const delivered = outcomes.filter((o) => o.status === 200 && o.done).map((o) => o.id!);
  expect(delivered.length).toBeGreaterThan(ROUNDS);

  const direct = new pg.Client({ connectionString: db.url });
  await direct.connect();
  try {
    const billed = async () =>
      (await direct.query("SELECT request_id, count(*)::int AS n FROM ledger WHERE request_id = ANY($1) GROUP BY request_id", [delivered])).rows;
    await expect.poll(async () => (await billed()).length, { timeout: 20_000 }).toBe(delivered.length);
    expect((await billed()).every((r) => r.n === 1)).toBe(true);
  } finally {
    await direct.end();
  }

  // Revoked from another process (the CLI) after the last round: refused by all three within 1 s.
  for (const p of procs) expect((await streamOnce(p.url, key)).status).toBe(200);
  expect((await gateway(["keys", "revoke", "chaos"], { cwd: dir, env })).exitCode).toBe(0);
  const revokedAt = Date.now();
  for (const p of procs) {
    while ((await streamOnce(p.url, key)).status !== 401) {
      expect(Date.now() - revokedAt).toBeLessThan(1_000);
      await sleep(25);
    }
  }
}, 170_000);
