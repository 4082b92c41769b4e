/**
 * `node dist/bench/limiter.js [--redis redis://127.0.0.1:6379] [--takes 20000]`: what one
 * rate-limit take costs in memory (src/access/limits.ts) and through Redis (src/fleet/limits-redis.ts):
 * one at a time (the latency a request pays) and 50 in flight (a loaded gateway). Writes its
 * keys under a random prefix and deletes them. The README's "Running several processes"
 * quotes it.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { Health } from "../src/upstream/health.js";
import { createMemoryLimiter, type Limiter } from "../src/access/limits.js";
import { openShared } from "../src/fleet/redis.js";

const { values: opts } = parseArgs({ options: { redis: { type: "string", default: "redis://127.0.0.1:6379" }, takes: { type: "string", default: "20000" } } });
const TAKES = Number(opts.takes);
const IN_FLIGHT = 50;

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** One at a time: microseconds per take (p50, p99). */
async function serial(limiter: Limiter, bucket: string): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < TAKES; i++) {
    const t = performance.now();
    await limiter.take(`${bucket}:${i % 100}`, 1_000_000, 60_000, Date.now());
    times.push((performance.now() - t) * 1000);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

/** IN_FLIGHT loops at once: takes per second. */
async function concurrent(limiter: Limiter, bucket: string): Promise<number> {
  let left = TAKES;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, w) => {
      while (left-- > 0) await limiter.take(`${bucket}:${w}`, 1_000_000, 60_000, Date.now());
    }),
  );
  return TAKES / ((performance.now() - t) / 1000);
}

async function report(name: string, limiter: Limiter, bucket: string): Promise<void> {
  await serial(limiter, `${bucket}:warm`);
  const s = await serial(limiter, bucket);
  const rate = await concurrent(limiter, `${bucket}:c`);
  console.log(`${name.padEnd(8)} one at a time: p50 ${s.p50.toFixed(1)} µs, p99 ${s.p99.toFixed(1)} µs; ${IN_FLIGHT} in flight: ${Math.round(rate)} takes/s`);
}

const prefix = `gwbench:${randomBytes(4).toString("hex")}:`;
await report("memory", createMemoryLimiter(), "b");
const shared = await openShared({ url: opts.redis, prefix }, new Health({ failureThreshold: 5, cooldown: 30_000 }), Date.now);
if (!shared.limiter.shared) throw new Error(`Redis at ${opts.redis} does not answer`);
try {
  await report("redis", shared.limiter, "b");
} finally {
  const { Redis } = await import("ioredis");
  const admin = new Redis(opts.redis);
  let cursor = "0";
  do {
    const [next, keys] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    if (keys.length) await admin.del(...keys);
  } while (cursor !== "0");
  admin.disconnect();
  await shared.close();
}
