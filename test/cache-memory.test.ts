/**
 * The in-process response cache's bounds (docs/cache.md), fed directly: 100,000 distinct
 * answers never take it past `maxEntries` or `maxBytes` by its own accounting (which counts
 * each key and answer in UTF-8 bytes), the least recently used go first, an answer larger than
 * `maxEntryBytes` is not kept, and an entry expires `ttl` seconds after it was stored. The
 * request memo's entries and their parsed answers count in the same `maxBytes`, and go with the
 * answer they point to (test/cache-memo-memory.test.ts measures it on a process).
 */
import { describe, expect, test } from "vitest";
import { CacheBudget } from "../src/cache/byte-budget.js";
import { cacheKey } from "../src/cache/key.js";
import { MemoryCache } from "../src/cache/memory.js";
import { openCache, type Remembered } from "../src/cache/open.js";
import type { ResponseCache } from "../src/cache/policy.js";
import { RequestMemo } from "../src/cache/request-memo.js";

const answer = (i: number) => JSON.stringify({ answer: { choices: [{ index: 0, content: `answer number ${i} `.repeat(1 + (i % 7)) }] }, usage: {} });

test("100,000 distinct requests: entries and bytes stay within their bounds, and what is kept is the most recent", async () => {
  const limits = { ttl: 300, maxEntries: 5_000, maxBytes: 1_000_000, maxEntryBytes: 64 * 1024 };
  const cache = new MemoryCache(limits, () => 0);
  let peakBytes = 0;
  let peakEntries = 0;
  for (let i = 0; i < 100_000; i++) {
    await cache.set(cacheKey("acct", "m", { i }), answer(i));
    peakBytes = Math.max(peakBytes, cache.bytes);
    peakEntries = Math.max(peakEntries, cache.size);
  }
  expect(peakEntries).toBeLessThanOrEqual(limits.maxEntries);
  expect(peakBytes).toBeLessThanOrEqual(limits.maxBytes);
  expect(cache.bytes).toBeGreaterThan(limits.maxBytes * 0.9); // full, not emptied
  expect(await cache.get(cacheKey("acct", "m", { i: 99_999 }))).toBe(answer(99_999));
  expect(await cache.get(cacheKey("acct", "m", { i: 0 }))).toBeUndefined();
});

test("entries alone bound it too; a read makes an entry the most recently used", async () => {
  const cache = new MemoryCache({ ttl: 300, maxEntries: 3, maxBytes: 1e9, maxEntryBytes: 1e6 }, () => 0);
  for (const k of ["a", "b", "c"]) await cache.set(k, k);
  expect(await cache.get("a")).toBe("a");
  await cache.set("d", "d"); // evicts b, the least recently used
  expect([await cache.get("a"), await cache.get("b"), await cache.get("c"), await cache.get("d")]).toEqual(["a", undefined, "c", "d"]);
  expect(cache.size).toBe(3);
  expect(cache.bytes).toBe(6);
});

test("an answer larger than maxEntryBytes is not kept; replacing an entry counts its bytes once", async () => {
  const cache = new MemoryCache({ ttl: 300, maxEntries: 10, maxBytes: 1e6, maxEntryBytes: 100 }, () => 0);
  await cache.set("big", "x".repeat(200));
  expect(await cache.get("big")).toBeUndefined();
  await cache.set("k", "é".repeat(10)); // 1 + 20 bytes in UTF-8
  await cache.set("k", "é".repeat(20));
  expect(cache.bytes).toBe(41);
});

test("an entry expires ttl seconds after it was stored, and its bytes are released", async () => {
  let now = 1_000_000;
  const cache = new MemoryCache({ ttl: 60, maxEntries: 10, maxBytes: 1e6, maxEntryBytes: 1e6 }, () => now);
  await cache.set("k", "v");
  now += 59_999;
  expect(await cache.get("k")).toBe("v");
  now += 1;
  expect(await cache.get("k")).toBeUndefined();
  expect(cache.bytes).toBe(0);
});

test("the key: the same for the same account, model and body in any key order, whatever stream asks; different otherwise", () => {
  const body = { model: "m", temperature: 0, messages: [{ role: "user", content: "hi" }] };
  const k = cacheKey("a", "m", body);
  expect(k).toMatch(/^[0-9a-f]{64}$/);
  expect(
    cacheKey("a", "m", { messages: [{ content: "hi", role: "user" }], temperature: 0, model: "m", stream: true, stream_options: { include_usage: true } }),
  ).toBe(k);
  expect(cacheKey("b", "m", body)).not.toBe(k);
  expect(cacheKey("a", "m2", body)).not.toBe(k);
  expect(cacheKey("a", "m", { ...body, temperature: 0.1 })).not.toBe(k);
  expect(cacheKey("a", "m", { ...body, messages: [{ role: "user", content: "hi", stream: true }] })).not.toBe(k); // only the top-level stream is left out
});

describe("the request memo counts in the same bound (docs/cache.md, Memory)", () => {
  const settings = { enabled: true, ttl: 300, maxEntries: 10_000, maxBytes: 1_000_000, maxEntryBytes: 200_000 };
  const bigAnswer = (i: number) => JSON.stringify({ answer: { choices: [{ index: 0, content: `${i} `.padEnd(100_000, "x") }] }, usage: {} });
  const raw = (i: number) => Buffer.from(JSON.stringify({ model: "m", temperature: 0, messages: [{ role: "user", content: `q${i}` }] }));

  /** As the pipeline does: a miss stores the answer, a hit remembers the body, a repeat parses the answer through the memo. */
  async function repeated(cache: ResponseCache, memo: RequestMemo<Remembered>, i: number): Promise<{ digest: string; parsed: unknown }> {
    const id = cacheKey("acct", "m", { i });
    await cache.set(id, bigAnswer(i));
    const digest = memo.digest("key", "chat", raw(i))!;
    expect(await cache.get(id)).toBeDefined();
    memo.set(digest, id, { body: {}, route: {} as Remembered["route"] }, raw(i).length);
    const text = await cache.get(memo.get(digest)!.id);
    return { digest, parsed: memo.parsed(digest, text!) };
  }

  test("in process: answers and the memo's copies together never pass maxBytes; an answer the cache drops takes its memo entries", async () => {
    const { cache, memo } = openCache(settings, undefined, () => 0)!;
    const mem = cache as MemoryCache;
    let peak = 0;
    const digests: string[] = [];
    for (let i = 0; i < 200; i++) {
      const { digest, parsed } = await repeated(cache, memo, i);
      digests.push(digest);
      peak = Math.max(peak, mem.bytes + memo.bytes);
      // The parse kept while there is room: the next repeat gets the same object, not a new parse.
      expect(memo.parsed(digest, (await cache.get(memo.get(digest)!.id))!)).toBe(parsed);
    }
    expect(peak).toBeLessThanOrEqual(settings.maxBytes);
    expect(mem.bytes + memo.bytes).toBeGreaterThan(settings.maxBytes * 0.8); // full, not emptied
    expect(memo.size).toBeLessThanOrEqual(mem.size);
    expect(memo.get(digests[0]!)).toBeUndefined(); // its answer was evicted long ago
    expect(memo.get(digests.at(-1)!)).toBeDefined();
    memo.clear();
    expect(memo.bytes).toBe(0);
  });

  test("an expired answer takes its memo entries along", async () => {
    let now = 0;
    const { cache, memo } = openCache({ ...settings, ttl: 1 }, undefined, () => now)!;
    const { digest } = await repeated(cache, memo, 1);
    expect(memo.bytes).toBeGreaterThan(100_000);
    now += 1000;
    expect(await cache.get(memo.get(digest)!.id)).toBeUndefined();
    expect([memo.size, memo.bytes]).toEqual([0, 0]);
  });

  test("with answers elsewhere (Redis): each copy counted twice (its text and its parse), the memo alone within maxBytes", () => {
    const memo = new RequestMemo<Remembered>(new CacheBudget(settings.maxBytes), { sharedText: false });
    for (let i = 0; i < 200; i++) {
      const digest = memo.digest("key", "chat", raw(i))!;
      memo.set(digest, `id${i}`, { body: {}, route: {} as Remembered["route"] }, raw(i).length);
      memo.parsed(digest, bigAnswer(i));
      expect(memo.bytes).toBeLessThanOrEqual(settings.maxBytes);
    }
    expect(memo.size).toBe(Math.floor(settings.maxBytes / (2 * bigAnswer(0).length + raw(0).length)));
  });
});
