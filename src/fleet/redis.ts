/**
 * What several gateway processes share through Redis (docs/fleet.md, README "Running several
 * processes"): rate-limit windows (src/fleet/limits-redis.ts) and circuit states
 * (src/fleet/circuits-redis.ts). Redis keeps nothing that cannot be lost: a restart empties the
 * current windows and circuits, never money. Loaded only when a Redis is configured, so the
 * single-process path does not even import the client.
 */
import { Redis } from "ioredis";
import type { RedisSettings } from "../config/config.js";
import type { Health } from "../upstream/health.js";
import type { Limiter } from "../access/limits.js";
import { createRedisLimiter } from "./limits-redis.js";
import { shareCircuits } from "./circuits-redis.js";
import { connectionErrorLine } from "../core/connection-errors.js";
import { sayOnStderr } from "../core/one-line.js";

/** A hung Redis holds a request at most this long before its limits fall back to this process. */
export const COMMAND_TIMEOUT_MS = 500;
/** How long `serve` waits for Redis at start before it begins with per-process limits. */
const START_WAIT_MS = 1_000;
/** Reconnect attempts back off to this, so a Redis that returns is used again within about a second. */
const RECONNECT_MAX_MS = 1_000;

export interface SharedState {
  limiter: Limiter;
  /** The command connection, for the response cache in Redis (src/cache/redis.ts). */
  client: Redis;
  close(): Promise<void>;
}

/** Both connections and what runs on them; resolves once Redis answered or START_WAIT_MS passed. */
export async function openShared(settings: RedisSettings, health: Health, now: () => number, log: (line: string) => void = sayOnStderr): Promise<SharedState> {
  // Commands fail at once while disconnected (no offline queue): a limit falls back rather than waits.
  const client = connect(settings.url, "Redis", { enableOfflineQueue: false, commandTimeout: COMMAND_TIMEOUT_MS });
  // The subscriber is off the request path; it subscribes on each connection (src/fleet/circuits-redis.ts).
  const subscriber = connect(settings.url, "Redis subscriber", {});
  await whenReady(client, START_WAIT_MS);
  const limiter = createRedisLimiter(client, settings.prefix, `Redis at ${redacted(settings.url)}`, log);
  const circuits = shareCircuits(health, client, subscriber, settings.prefix, now);
  return {
    limiter,
    client,
    async close() {
      limiter.stop();
      circuits.stop();
      // Every request has ended by now (Gateway.close): nothing is waiting on these connections.
      client.disconnect();
      subscriber.disconnect();
    },
  };
}

/** A client of its own (never `duplicate()`: each one must get its 'error' listener here). */
function connect(url: string, source: string, options: { enableOfflineQueue?: boolean; commandTimeout?: number }): Redis {
  const client = new Redis(url, {
    ...options,
    connectTimeout: START_WAIT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 100, RECONNECT_MAX_MS),
  });
  // Without an 'error' listener a reset connection would end the process; ioredis reconnects
  // by itself (retryStrategy) and the limiter says when limits fall back (docs/fleet.md).
  client.on("error", connectionErrorLine(source));
  return client;
}

function whenReady(client: Redis, ms: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off("ready", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    client.once("ready", done);
  });
}

/** The URL without its password, for log lines. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "the configured URL";
  }
}
