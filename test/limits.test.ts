/**
 * Rate limits (docs/limits.md, docs/limits.md): rolling windows per key, per client IP
 * without a valid key, per model and per provider; the X-RateLimit-* headers on every
 * answer, the tier that refused on a 429, Retry-After equal to X-RateLimit-Reset.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createMemoryLimiter } from "../src/access/limits.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { startGateway, twoProviderConfig, type TestGateway } from "./helpers/gateway.js";
import { bearer, expectError, expectLimitHeaders } from "./helpers/http.js";
import { completion, error, stream } from "./helpers/openai-wire.js";

const MODEL = "acme/chat";
let primary: FakeUpstream;
let secondary: FakeUpstream;
const gateways: TestGateway[] = [];

const answer =
  (text: string) =>
  (req: Recorded): Reply =>
    req.body?.stream ? stream([text]) : completion(text);

beforeAll(async () => {
  primary = await startFakeUpstream(answer("from primary"));
  secondary = await startFakeUpstream(answer("from secondary"));
});
afterAll(async () => {
  for (const gw of gateways) await gw.close();
  await primary.close();
  await secondary.close();
});

/** A gateway over both fakes (`primary` first, fixed order) with these limits. */
async function gateway(limits: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<TestGateway> {
  const gw = await startGateway({
    ...twoProviderConfig(MODEL, primary.url, secondary.url),
    limits,
    ...extra,
  });
  gateways.push(gw);
  await gw.addCredits("100");
  return gw;
}

/** Each request a conversation of its own, so the router's order decides (prompt-cache affinity: test/affinity.test.ts). */
let asked = 0;
const chat = (gw: TestGateway, key: string, body: Record<string, unknown> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: `hi ${++asked}` }], ...body }),
  });
const models = (gw: TestGateway, key: string) => fetch(`${gw.url}/v1/models`, { headers: bearer(key) });

const limitOf = (res: Response) => ({
  limit: Number(res.headers.get("x-ratelimit-limit")),
  remaining: Number(res.headers.get("x-ratelimit-remaining")),
  reset: Number(res.headers.get("x-ratelimit-reset")),
});

/** A 429 as docs/http.md fixes it; returns its headers. */
async function expect429(res: Response): Promise<ReturnType<typeof limitOf>> {
  await expectError(res, 429, "rate_limit_error", "rate_limited");
  expect(res.headers.get("retry-after")).toBe(res.headers.get("x-ratelimit-reset"));
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  return limitOf(res);
}

describe("key tier (rolling window)", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await gateway({ key: { requests: 3, window: 2 } });
  });

  test("N allowed, N+1 refused; when the oldest request leaves the window exactly one slot frees", async () => {
    const key = await gw.createKey();
    const a = await models(gw, key);
    const afterA = Date.now();
    expect(a.status).toBe(200);
    expect(limitOf(a)).toEqual({ limit: 3, remaining: 2, reset: 2 });
    await sleep(1000);
    const b = await models(gw, key);
    expect(limitOf(b)).toMatchObject({ limit: 3, remaining: 1 });
    expect(limitOf(b).reset).toBe(1); // until A leaves, not until the window is empty
    expect(limitOf(await models(gw, key))).toMatchObject({ remaining: 0 });
    expect(await expect429(await models(gw, key))).toEqual({ limit: 3, remaining: 0, reset: 1 });

    await sleep(afterA + 2050 - Date.now()); // A has left; B and C stay for another ~900 ms
    const e = await models(gw, key);
    expect(e.status).toBe(200);
    expect(limitOf(e)).toMatchObject({ limit: 3, remaining: 0 });
    await expect429(await models(gw, key));
  });

  test("headers on 200 (JSON and stream), 400 and 429; the refused request does not count", async () => {
    const key = await gw.createKey();
    const ok = await chat(gw, key);
    expect(ok.status).toBe(200);
    expectLimitHeaders(ok);
    expect(limitOf(ok)).toMatchObject({ limit: 3, remaining: 2 });
    const streamed = await chat(gw, key, { stream: true });
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(limitOf(streamed)).toMatchObject({ limit: 3, remaining: 1 });
    await streamed.text();
    const bad = await chat(gw, key, { temperature: 9 });
    await expectError(bad, 400, "invalid_request_error", null);
    expect(limitOf(bad)).toMatchObject({ limit: 3, remaining: 0 });
    expect(await expect429(await chat(gw, key))).toMatchObject({ limit: 3, remaining: 0 });
    expect(await expect429(await models(gw, key))).toMatchObject({ limit: 3, remaining: 0 });
  });

  test("a key's own rpm overrides the configured tier (N per 60 s)", async () => {
    const key = await gw.createKey({ rpm: 2 });
    expect(limitOf(await models(gw, key))).toEqual({ limit: 2, remaining: 1, reset: 60 });
    expect(limitOf(await models(gw, key))).toMatchObject({ limit: 2, remaining: 0 });
    const refused = await expect429(await models(gw, key));
    expect(refused.limit).toBe(2);
    expect(refused.reset).toBeGreaterThan(50);
    expect(refused.reset).toBeLessThanOrEqual(60);
  });

  test("keys are limited separately", async () => {
    const [one, two] = [await gw.createKey(), await gw.createKey()];
    for (let i = 0; i < 3; i++) expect((await models(gw, one)).status).toBe(200);
    await expect429(await models(gw, one));
    expect(limitOf(await models(gw, two))).toMatchObject({ limit: 3, remaining: 2 });
  });
});

test("concurrency: 50 parallel requests against a key limit of 10, exactly 10 succeed", async () => {
  const gw = await gateway({ key: { requests: 10, window: 60 } });
  const key = await gw.createKey();
  const before = primary.requests.length;
  const statuses = await Promise.all(Array.from({ length: 50 }, () => chat(gw, key).then(async (r) => (await r.arrayBuffer(), r.status))));
  expect(statuses.filter((s) => s === 200)).toHaveLength(10);
  expect(statuses.filter((s) => s === 429)).toHaveLength(40);
  expect(primary.requests.length - before).toBe(10);
});

test("without a valid key the client IP is limited: headers on 401, then 429 instead of 401", async () => {
  const gw = await gateway({ ip: { requests: 3, window: 60 } });
  for (const remaining of [2, 1, 0]) {
    const res = await models(gw, "sk-not-a-real-key");
    await expectError(res, 401, "authentication_error", "invalid_api_key");
    expect(limitOf(res)).toMatchObject({ limit: 3, remaining });
  }
  expect(await expect429(await chat(gw, "sk-still-not-a-key"))).toMatchObject({ limit: 3, remaining: 0 });
  expect(await expect429(await fetch(`${gw.url}/v1/health/providers`))).toMatchObject({ limit: 3 });
  // A valid key is not held back by the IP tier.
  expect((await models(gw, await gw.createKey())).status).toBe(200);
});

test("model tier: refuses with 429 reporting that tier while the key tier still has room", async () => {
  const gw = await gateway({ key: { requests: 100, window: 60 }, models: { [MODEL]: { requests: 2, window: 30 } } });
  const key = await gw.createKey();
  for (const remaining of [99, 98]) expect(limitOf(await chat(gw, key))).toMatchObject({ limit: 100, remaining });
  const refused = await expect429(await chat(gw, key));
  expect(refused).toMatchObject({ limit: 2, remaining: 0 });
  expect(refused.reset).toBeLessThanOrEqual(30);
  const list = await models(gw, key);
  expect(list.status).toBe(200);
  expect(limitOf(list)).toMatchObject({ limit: 100 });
});

describe("provider tier", () => {
  test("a full provider is skipped: the other endpoint serves", async () => {
    const gw = await gateway({ providers: { primary: { requests: 1, window: 60 } } });
    const key = await gw.createKey();
    const [p, s] = [primary.requests.length, secondary.requests.length];
    const first = await chat(gw, key);
    expect(((await first.json()) as any).choices[0].message.content).toBe("from primary");
    const second = await chat(gw, key);
    expect(((await second.json()) as any).choices[0].message.content).toBe("from secondary");
    expect(limitOf(second)).toMatchObject({ limit: 600 }); // a 200 reports the key tier
    expect([primary.requests.length - p, secondary.requests.length - s]).toEqual([1, 1]);
  });

  test("an open circuit does not use up its provider's tier", async () => {
    const gw = await gateway({ providers: { primary: { requests: 2, window: 60 } } }, { health: { failureThreshold: 1, cooldown: 600 } });
    const key = await gw.createKey();
    const p = primary.requests.length;
    primary.queue(error(503)); // an outage (a 500 from one key alone would not open it)
    for (let i = 0; i < 3; i++) expect((await chat(gw, key)).status).toBe(200); // 1 failure, then skipped while open
    expect(primary.requests.length - p).toBe(1);
    await sleep(700);
    const probe = await chat(gw, key);
    expect(((await probe.json()) as any).choices[0].message.content).toBe("from primary"); // its 2nd slot was still free
  });

  test("every endpoint's provider full: 429 reporting the provider tier that frees first", async () => {
    const gw = await gateway({ providers: { primary: { requests: 1, window: 60 }, secondary: { requests: 2, window: 20 } } });
    const key = await gw.createKey();
    const [p, s] = [primary.requests.length, secondary.requests.length];
    for (let i = 0; i < 3; i++) expect((await chat(gw, key)).status).toBe(200);
    const refused = await expect429(await chat(gw, key, { stream: true }));
    expect(refused).toMatchObject({ limit: 2, remaining: 0 });
    expect(refused.reset).toBeLessThanOrEqual(20);
    expect([primary.requests.length - p, secondary.requests.length - s]).toEqual([1, 2]);
  });
});

describe("the sliding log itself (a given clock)", () => {
  test("exact at the boundary: a request leaves the window exactly `window` ms after it was counted", async () => {
    const limiter = createMemoryLimiter();
    const take = (now: number) => limiter.take("k", 2, 1000, now);
    expect(await take(0)).toEqual({ ok: true, limit: 2, remaining: 1, reset: 1 });
    expect(await take(400)).toEqual({ ok: true, limit: 2, remaining: 0, reset: 1 });
    expect(await take(999)).toMatchObject({ ok: false, remaining: 0, reset: 1 });
    expect(await take(1000)).toMatchObject({ ok: true, remaining: 0 }); // the one from t=0 left
    expect(await take(1399)).toMatchObject({ ok: false });
    expect(await take(1400)).toMatchObject({ ok: true });
    expect(await take(5000)).toEqual({ ok: true, limit: 2, remaining: 1, reset: 1 }); // the window had emptied
  });

  test("large limits: every slot counts, in order, as the log grows and wraps", async () => {
    const limiter = createMemoryLimiter();
    const take = (now: number) => limiter.take("big", 100, 10_000, now);
    for (let i = 0; i < 30; i++) expect((await take(i)).ok).toBe(true); // t = 0..29
    for (let i = 0; i < 70; i++) expect((await take(5000 + i)).ok).toBe(true); // t = 5000..5069
    expect(await take(9999)).toMatchObject({ ok: false, remaining: 0 });
    for (let i = 0; i < 30; i++) expect((await take(10_000 + i)).ok).toBe(true); // each frees as t = i leaves
    expect(await take(10_030)).toMatchObject({ ok: false, reset: 5 }); // next to leave: t = 5000, at 15 000
    expect(await take(15_000)).toMatchObject({ ok: true, remaining: 0 });
  });
});
