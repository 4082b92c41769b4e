/**
 * Rate limits shared by every gateway process (docs/limits.md and docs/fleet.md): the sliding log of
 * src/access/limits.ts as one Redis sorted set per bucket, read and written by one Lua script per
 * take, so a window of N admits exactly N in total however many processes take from it.
 * When Redis does not answer, takes fall back to this process's memory limiter and come
 * back to Redis when it answers again; each transition is said once in the log
 * (README "Running several processes").
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { createMemoryLimiter, type LimitResult, type Limiter } from "../access/limits.js";

/**
 * KEYS[1]: the bucket's sorted set (members unique per take, scored by time in ms).
 * ARGV: limit, window ms, member. Times come from Redis's own clock (TIME), so processes on
 * hosts whose clocks differ still share one window. Entries at or before now - window are
 * gone, as in the memory limiter. Returns {admitted 0|1, count, oldest score, now}.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local ok = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  count = count + 1
  ok = 1
end
local oldest = 0
if count > 0 then
  oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window))
end
return {ok, count, oldest, now}
`;

/** How often a process on fallback asks whether Redis answers again. */
const PROBE_MS = 1_000;

type TakeReply = [number, number, number, number];

interface ScriptedRedis extends Redis {
  gatewayTake(key: string, limit: number, windowMs: number, member: string): Promise<TakeReply>;
}

export interface RedisLimiter extends Limiter {
  /** Ends the probe timer (the connection belongs to src/fleet/redis.ts). */
  stop(): void;
}

/** Reset as src/access/limits.ts computes it: whole seconds until the oldest counted take leaves the window. */
function resultOf([ok, count, oldest, now]: TakeReply, limit: number, windowMs: number): LimitResult {
  return {
    ok: ok === 1,
    limit,
    remaining: Math.max(0, limit - count),
    reset: count === 0 ? 0 : Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)),
  };
}

/**
 * Whether Redis answers, as the takes and the connection see it; says each change once.
 * A Redis that hangs keeps its connection open: only a probe tells when it answers again.
 */
function follow(client: Redis, name: string, log: (line: string) => void) {
  let up = client.status === "ready";
  if (!up) log(`[gateway] ${name} does not answer: rate limits are per process until it does`);
  const turn = (next: boolean, why?: string) => {
    if (next === up) return;
    up = next;
    log(
      next
        ? `[gateway] ${name} answers again: rate limits are shared by every process`
        : `[gateway] ${name} does not answer (${why}): rate limits are per process until it does`,
    );
  };
  const ready = () => turn(true);
  const closed = () => turn(false, "connection closed");
  client.on("ready", ready);
  client.on("close", closed);
  const probe = setInterval(() => {
    if (!up)
      client.ping().then(
        () => turn(true),
        () => undefined,
      );
  }, PROBE_MS);
  probe.unref();
  return {
    up: () => up,
    down: (why: string) => turn(false, why),
    stop() {
      clearInterval(probe);
      client.off("ready", ready);
      client.off("close", closed);
    },
  };
}

export function createRedisLimiter(client: Redis, prefix: string, name: string, log: (line: string) => void): RedisLimiter {
  client.defineCommand("gatewayTake", { numberOfKeys: 1, lua: TAKE });
  const redis = client as ScriptedRedis;
  const memory = createMemoryLimiter();
  const state = follow(client, name, log);
  // Members must be unique across processes: one random id per process, then a counter.
  const self = randomBytes(6).toString("base64url");
  let seq = 0;
  return {
    get shared() {
      return state.up();
    },
    async take(bucket, limit, windowMs, now) {
      if (state.up()) {
        try {
          return resultOf(await redis.gatewayTake(`${prefix}rl:${bucket}`, limit, windowMs, `${self}:${++seq}`), limit, windowMs);
        } catch (err) {
          state.down((err as Error).message);
        }
      }
      return memory.take(bucket, limit, windowMs, now);
    },
    stop: state.stop,
  };
}
