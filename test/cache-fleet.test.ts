/**
 * The response cache of a fleet (docs/cache.md): two `gateway serve` processes on one
 * PostgreSQL database and one Redis share their hits (an answer fetched through one is served
 * by the other without an upstream call), keys live under the configured prefix with a TTL,
 * a key opts in with `gateway keys create --cache`, and `gateway usage --json` counts the hit
 * and what it saved. A Redis that does not answer makes the cache a miss, never an error.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, freePort, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { keysUnder, REDIS_URL, useRedis } from "./helpers/redis.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";

type Proc = Awaited<ReturnType<typeof serve>>;

const BODY = { model: "openai/gpt-4o-mini", temperature: 0, messages: [{ role: "user", content: "the fleet's question" }] };
const redis = useRedis();
let fake: FakeUpstream;
let db: TestDatabase;
let dir: string;
let procs: Proc[] = [];
const env = () => ({ GATEWAY_DB: db.url });
const cli = (...args: string[]) => gateway([...args, "--json"], { cwd: dir, env: env() });
const ask = (url: string, key: string) =>
  fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify(BODY) });

function config(name: string, redisUrl: string, prefix: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    [
      `providers: { openai: { baseUrl: "${fake.url}/v1", apiKey: sk-upstream-cache-fleet } }`,
      `models: [{ id: openai/gpt-4o-mini, pricing: { prompt: "0.15", completion: "0.6" }, context_length: 128000, max_output: 16384, endpoints: [{ provider: openai, model: gpt-4o-mini }] }]`,
      `redis: { url: "${redisUrl}", prefix: "${prefix}" }`,
      "cache: { enabled: true, ttl: 120 }",
    ].join("\n"),
  );
  return file;
}

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream(() => completion("kept for the fleet", { prompt_tokens: 1000, completion_tokens: 1000 }));
  db = await createTestDatabase();
  dir = tempDir();
  const file = config("gateway.config.yaml", REDIS_URL, redis.prefix);
  procs = await Promise.all([0, 1].map(() => serve(["--config", file], { cwd: dir, env: env() })));
}, 60_000);

afterAll(async () => {
  for (const p of procs) p.proc.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.proc));
  await fake?.close();
  await db?.drop();
});

test("an answer fetched through one process is a hit on the other, kept in Redis under the prefix with a TTL; usage counts it", async () => {
  const key = (await cli("keys", "create", "--name", "cached", "--account", "acme", "--create", "--cache")).json;
  expect(key.cache).toBe("on");
  await cli("credits", "add", "1", "--account", "acme");
  const [a, b] = procs as [Proc, Proc];
  const miss = await ask(a.url, key.key);
  expect([miss.status, miss.headers.get("x-gateway-cache")]).toEqual([200, "miss"]);
  const first = (await miss.json()) as any;
  // The miss is stored as it is answered: wait for the write to land before asking the other process.
  const cached = async () => (await keysUnder(redis.client, redis.prefix)).filter((k) => k.startsWith(`${redis.prefix}cache:`));
  for (let i = 0; i < 40 && (await cached()).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  const hit = await ask(b.url, key.key);
  expect(hit.headers.get("x-gateway-cache")).toBe("hit");
  expect(((await hit.json()) as any).choices[0].message.content).toBe(first.choices[0].message.content);
  const upstreamCalls = fake.requests.length;
  expect(upstreamCalls).toBe(1); // only the first request reached the upstream

  const kept = await cached();
  expect(kept).toHaveLength(1);
  expect(kept[0]).toMatch(/^gwtest:[0-9a-f]+:cache:[0-9a-f]{64}$/); // a hash: no request text, no key
  const ttl = await redis.client.ttl(kept[0]!);
  expect(ttl).toBeGreaterThan(100);
  expect(ttl).toBeLessThanOrEqual(120);

  const usage = (await cli("usage", "--account", "acme")).json;
  // 1000 × $0.15/1M + 1000 × $0.60/1M = $0.00075 per request: charged once, saved once.
  expect(usage).toMatchObject({ cost: "0.00075", cache_hits: 1, cache_saved: "0.00075" });
  expect(usage.requests).toBeGreaterThanOrEqual(2);
  expect(usage.by_key[0]).toMatchObject({ name: "cached", cache_hits: 1, cache_saved: "0.00075" });
});

test("with its Redis unreachable, a cached key's request is a miss answered by the upstream, never a 5xx", async () => {
  const key = (await cli("keys", "create", "--name", "no-redis", "--account", "acme", "--cache")).json.key as string;
  const file = config("no-redis.yaml", `redis://127.0.0.1:${await freePort()}`, redis.prefix);
  const lone = await serve(["--config", file], { cwd: dir, env: env() });
  try {
    for (let i = 0; i < 2; i++) {
      const res = await ask(lone.url, key);
      expect([res.status, res.headers.get("x-gateway-cache")]).toEqual([200, "miss"]);
    }
  } finally {
    lone.proc.kill("SIGTERM");
    await lone.proc;
  }
});
