/**
 * Rate limits shared through Redis (docs/limits.md and docs/fleet.md): a window of N admits exactly N in
 * total across every process, with the headers of the memory limiter; Redis down means
 * per-process limits, said once in the log and shown by the health endpoint; Redis back means
 * shared again. Real Redis (127.0.0.1:6379, or a private redis-server this file starts and
 * kills), real gateways on loopback.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Health } from "../src/upstream/health.js";
import { openShared, type SharedState } from "../src/fleet/redis.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { type TestGateway } from "./helpers/gateway.js";
import { healthOf, sharedKey, startFleet, waitFor } from "./helpers/fleet.js";
import { bearer, expectError } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { freePort, keysUnder, REDIS_URL, startRedisServer, useRedis, type RedisServer } from "./helpers/redis.js";

const MODEL = "acme/chat";
const r = useRedis();
let fake: FakeUpstream;
const gateways: TestGateway[] = [];
const shared: SharedState[] = [];

beforeAll(async () => {
  fake = await startFakeUpstream(() => completion("ok"));
});
afterAll(async () => {
  for (const s of shared) await s.close();
  for (const gw of gateways) await gw.close();
  await fake?.close();
});

const config = (redisUrl: string, limits: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  providers: { acme: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-acme-upstream-secret-1111" } },
  models: [{ id: MODEL, pricing: { prompt: "1", completion: "2" }, max_output: 1000, endpoints: [{ provider: "acme", model: "m" }] }],
  redis: { url: redisUrl, prefix: r.prefix },
  limits,
  ...extra,
});

async function fleet(n: number, redisUrl: string, limits: Record<string, unknown>): Promise<TestGateway[]> {
  const started = await startFleet(n, config(redisUrl, limits));
  gateways.push(...started);
  return started;
}

const chat = (gw: TestGateway, key: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
  });

const limitOf = (res: Response) => ({
  limit: Number(res.headers.get("x-ratelimit-limit")),
  remaining: Number(res.headers.get("x-ratelimit-remaining")),
  reset: Number(res.headers.get("x-ratelimit-reset")),
});

describe("the shared window", () => {
  test("three gateways, a key limit of 10, 30 concurrent requests: exactly 10 answers and 20 × 429, headers as one process", async () => {
    const three = await fleet(3, REDIS_URL, { key: { requests: 10, window: 60 } });
    const key = await sharedKey(three);
    const before = fake.requests.length;
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => chat(three[i % 3]!, key)));
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(20);
    expect(fake.requests.length - before).toBe(10);
    // Each admitted request saw its own place in the one window: remaining 9, 8, ..., 0 once each.
    expect(ok.map((r) => limitOf(r).remaining).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const r of ok) expect(limitOf(r)).toMatchObject({ limit: 10, reset: 60 });
    for (const r of refused) {
      await expectError(r, 429, "rate_limit_error", "rate_limited");
      expect(limitOf(r)).toMatchObject({ limit: 10, remaining: 0 });
      expect(limitOf(r).reset).toBeGreaterThanOrEqual(59);
      expect(r.headers.get("retry-after")).toBe(r.headers.get("x-ratelimit-reset"));
    }
    await Promise.all(ok.map((r) => r.arrayBuffer()));
    // The window is one sorted set under the prefix, expiring with the window.
    const [bucket] = (await keysUnder(r.client, r.prefix)).filter((k) => k.startsWith(`${r.prefix}rl:key:`));
    expect(await r.client.zcard(bucket!)).toBe(10);
    expect(await r.client.pttl(bucket!)).toBeGreaterThan(50_000);
    expect(await r.client.pttl(bucket!)).toBeLessThanOrEqual(60_000);
  });

  test("a rolling window across processes: when the oldest take leaves, exactly one slot frees, and Reset counts to it", async () => {
    // Two limiters on their own connections, as two processes would have.
    const [a, b] = [
      await openShared({ url: REDIS_URL, prefix: r.prefix }, new Health({ failureThreshold: 5, cooldown: 30_000 }), Date.now),
      await openShared({ url: REDIS_URL, prefix: r.prefix }, new Health({ failureThreshold: 5, cooldown: 30_000 }), Date.now),
    ];
    shared.push(a, b);
    expect([a.limiter.shared, b.limiter.shared]).toEqual([true, true]);
    const take = (s: SharedState) => s.limiter.take("roll", 3, 2_000, Date.now());
    const first = await take(a);
    const afterFirst = Date.now();
    expect(first).toEqual({ ok: true, limit: 3, remaining: 2, reset: 2 });
    await sleep(1_000);
    expect(await take(b)).toEqual({ ok: true, limit: 3, remaining: 1, reset: 1 }); // until the first leaves, not the last
    expect(await take(a)).toMatchObject({ ok: true, remaining: 0 });
    expect(await take(b)).toEqual({ ok: false, limit: 3, remaining: 0, reset: 1 });
    await sleep(afterFirst + 2_050 - Date.now()); // the first has left; the other two stay ~950 ms more
    expect(await take(b)).toMatchObject({ ok: true, remaining: 0 });
    expect(await take(a)).toMatchObject({ ok: false, remaining: 0 });
  });
});

/** The operator notices of a closed gateway's log (its JSON lines are complete after close). */
function notices(gw: TestGateway): string[] {
  expect(gw.logFile, "the suite runs with a log folder (test/global-setup.ts)").toBeDefined();
  return readFileSync(gw.logFile!, "utf8")
    .split("\n")
    .filter((l) => l.includes('"event":"notice"'))
    .map((l) => String((JSON.parse(l) as { msg?: unknown }).msg));
}

describe("Redis down and back", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("requests are answered with per-process limits, said once; the health endpoint shows it; shared again when Redis returns", async () => {
    const [gw] = await fleet(1, server.url, { key: { requests: 3, window: 60 } });
    const key = await sharedKey([gw!]);
    expect((await healthOf(gw!)).limits).toBe("shared");
    expect(limitOf(await chat(gw!, key))).toMatchObject({ limit: 3, remaining: 2 });

    try {
      await server.stop();
      // A fresh per-process window: 3 answered, the 4th refused by this process's own count.
      for (const remaining of [2, 1, 0]) {
        const res = await chat(gw!, key);
        expect(res.status).toBe(200);
        expect(limitOf(res)).toMatchObject({ limit: 3, remaining });
      }
      await expectError(await chat(gw!, key), 429, "rate_limit_error", "rate_limited");
      expect((await healthOf(gw!)).limits).toBe("per_process");

      await server.start();
      await waitFor("limits shared again", async () => (await healthOf(gw!)).limits === "shared");
      // Redis restarted empty (docs/fleet.md: windows may be lost): a new shared window.
      expect(limitOf(await chat(gw!, key))).toMatchObject({ limit: 3, remaining: 2 });
      await gw!.close();
      gateways.splice(gateways.indexOf(gw!), 1);
      const lines = notices(gw!);
      const down = lines.filter((l) => l.includes("rate limits are per process"));
      expect(down).toHaveLength(1);
      expect(down[0]).toMatch(/^\[gateway\] Redis at redis:\/\/127\.0\.0\.1:\d+\/? does not answer/);
      expect(lines.filter((l) => l.includes("answers again: rate limits are shared"))).toHaveLength(1);
    } finally {
      if (gateways.includes(gw!)) await gw!.close();
    }
  });

  test("a Redis that hangs holds a request at most the command timeout (500 ms), then limits are per process until it answers again", async () => {
    const [gw] = await fleet(1, server.url, { key: { requests: 100, window: 60 } });
    const key = await sharedKey([gw!]);
    expect((await chat(gw!, key)).status).toBe(200);
    try {
      server.pause();
      const started = Date.now();
      expect((await chat(gw!, key)).status).toBe(200);
      const first = Date.now() - started;
      expect(first).toBeGreaterThanOrEqual(450);
      expect(first).toBeLessThan(3_000);
      // Once fallen back, requests no longer wait for Redis: five take far less than 5 × 500 ms.
      const next = Date.now();
      for (let i = 0; i < 5; i++) expect((await chat(gw!, key)).status).toBe(200);
      expect(Date.now() - next).toBeLessThan(1_500);
      expect((await healthOf(gw!)).limits).toBe("per_process");
      server.resume();
      await waitFor("limits shared again", async () => (await healthOf(gw!)).limits === "shared");
      await gw!.close();
      gateways.splice(gateways.indexOf(gw!), 1);
      const lines = notices(gw!);
      expect(lines.filter((l) => l.includes("rate limits are per process"))).toEqual([expect.stringMatching(/does not answer \(Command timed out\)/)]);
      expect(lines.filter((l) => l.includes("answers again"))).toHaveLength(1);
    } finally {
      server.resume();
    }
  });

  test("a Redis that is not there at start: the gateway starts, limits per process, one line", async () => {
    const nobody = `redis://127.0.0.1:${await freePort()}`;
    const [gw] = await fleet(1, nobody, { key: { requests: 2, window: 60 } });
    const key = await sharedKey([gw!]);
    expect((await healthOf(gw!)).limits).toBe("per_process");
    expect((await chat(gw!, key)).status).toBe(200);
    expect(limitOf(await chat(gw!, key))).toMatchObject({ limit: 2, remaining: 0 });
    expect((await chat(gw!, key)).status).toBe(429);
    await gw!.close();
    gateways.splice(gateways.indexOf(gw!), 1);
    expect(notices(gw!).filter((l) => l.includes("rate limits are per process"))).toHaveLength(1);
  });
});

test("without Redis the gateway is as before: per-process limits, no Redis connection", async () => {
  const [gw] = await startFleet(1, { ...config(REDIS_URL, { key: { requests: 2, window: 60 } }), redis: undefined });
  gateways.push(gw!);
  const key = await sharedKey([gw!]);
  expect((await healthOf(gw!)).limits).toBe("per_process");
  const before = (await keysUnder(r.client, r.prefix)).sort();
  expect(limitOf(await chat(gw!, key))).toMatchObject({ limit: 2, remaining: 1 });
  expect((await keysUnder(r.client, r.prefix)).sort()).toEqual(before);
});
