/**
 * The in-process response cache's bounds (docs/cache.md), fed directly: 100,000 distinct
 * answers never take it past `maxEntries` or `maxBytes` by its own accounting (which counts
 * each key and answer in UTF-8 bytes), the least recently used go first, an answer larger than
 * `maxEntryBytes` is not kept, and an entry expires `ttl` seconds after it was stored.
 */
import { expect, test } from "vitest";
import { cacheKey } from "../src/cache/key.js";
import { MemoryCache } from "../src/cache/memory.js";

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
