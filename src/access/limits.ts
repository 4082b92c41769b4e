/**
 * Rolling-window rate limits (a sliding log: exact in one process). The `Limiter`
 * interface is also implemented on Redis sorted sets for several gateway processes
 * (src/fleet/limits-redis.ts, which times takes by Redis's clock rather than `now`). Reset is the
 * number of seconds until the oldest counted request leaves the window, i.e. until Remaining
 * next goes up; 429's Retry-After equals it.
 */
export interface LimitResult {
  ok: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until a slot frees (0 when the window is empty). */
  reset: number;
}

export interface Limiter {
  /** Counts one request when the window has room. */
  take(bucket: string, limit: number, windowMs: number, now: number): Promise<LimitResult>;
  /** Whether counts are shared by every process (Redis) or kept in this one (docs/fleet.md). */
  readonly shared: boolean;
}

interface Log {
  times: Float64Array; // ring buffer of request times; grows up to `limit` as it fills
  head: number; // index of the oldest
  count: number;
  limit: number;
  windowMs: number;
}

const SWEEP_AT = 50_000;
const INITIAL_SLOTS = 8;

/** Oldest first into a buffer twice as large (never past the limit). */
function grow(log: Log): void {
  const times = new Float64Array(Math.min(log.limit, log.times.length * 2));
  for (let i = 0; i < log.count; i++) times[i] = log.times[(log.head + i) % log.times.length]!;
  log.times = times;
  log.head = 0;
}

export function createMemoryLimiter(): Limiter {
  const logs = new Map<string, Log>();
  // Sweeping is amortised: after a sweep the next one waits until the map has doubled.
  let sweepAt = SWEEP_AT;

  const logFor = (bucket: string, limit: number, windowMs: number, now: number): Log => {
    let log = logs.get(bucket);
    if (!log || log.limit !== limit || log.windowMs !== windowMs) {
      if (logs.size >= sweepAt) sweep(now);
      log = { times: new Float64Array(Math.min(limit, INITIAL_SLOTS)), head: 0, count: 0, limit, windowMs };
      logs.set(bucket, log);
    }
    while (log.count > 0 && log.times[log.head]! + windowMs <= now) {
      log.head = (log.head + 1) % log.times.length;
      log.count--;
    }
    return log;
  };

  // Drops idle buckets (e.g. one per client IP) so memory stays bounded.
  const sweep = (now: number) => {
    for (const [bucket, log] of logs) {
      const newest = log.times[(log.head + log.count - 1 + log.times.length) % log.times.length]!;
      if (log.count === 0 || newest + log.windowMs <= now) logs.delete(bucket);
    }
    sweepAt = Math.max(SWEEP_AT, logs.size * 2);
  };

  const result = (log: Log, limit: number, now: number, ok: boolean): LimitResult => ({
    ok,
    limit,
    remaining: limit - log.count,
    reset: log.count === 0 ? 0 : Math.max(1, Math.ceil((log.times[log.head]! + log.windowMs - now) / 1000)),
  });

  const take = (bucket: string, limit: number, windowMs: number, now: number): LimitResult => {
    const log = logFor(bucket, limit, windowMs, now);
    if (log.count >= limit) return result(log, limit, now, false);
    if (log.count === log.times.length) grow(log);
    log.times[(log.head + log.count) % log.times.length] = now;
    log.count++;
    return result(log, limit, now, true);
  };
  return { shared: false, take: (bucket, limit, windowMs, now) => Promise.resolve(take(bucket, limit, windowMs, now)) };
}
