/**
 * Redis for tests. The development machines run Redis 7 on 127.0.0.1:6379; a run that cannot
 * reach it fails (never skips) with one line saying how to start it. Each run uses its own key
 * prefix and deletes every key under it at the end, so runs never collide and leave nothing.
 * `startRedisServer` runs a second, private redis-server on a free port, to stop and restart.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";

export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const START = `redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`;

/** A client that fails fast instead of retrying for ever. */
export function testClient(url = REDIS_URL): Redis {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => undefined);
  return client;
}

/** Resolves with a connected client, or throws the one line that says what is missing. */
export async function requireRedis(url = REDIS_URL): Promise<Redis> {
  const client = testClient(url);
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (err) {
    client.disconnect();
    throw new Error(`Redis is not reachable at ${url} (${(err as Error).message}): start it with ${START}`, { cause: err });
  }
}

export interface RedisHarness {
  /** Filled in by beforeAll: read it inside tests. */
  readonly client: Redis;
  readonly prefix: string;
}

/**
 * Registers the hooks: connect before all; when Redis is missing every test fails (a failing
 * beforeAll alone would only mark them skipped) with the one line; at the end, delete every
 * key under the prefix and check none is left.
 */
export function useRedis(url = REDIS_URL): RedisHarness {
  const h = { prefix: testPrefix() } as { client: Redis; prefix: string };
  let missing: Error | undefined;
  beforeAll(async () => {
    h.client = await requireRedis(url).catch((err: Error) => ((missing = err), undefined as unknown as Redis));
  });
  beforeEach(() => {
    if (missing) throw missing;
  });
  afterAll(async () => {
    if (!h.client) return;
    await dropPrefix(h.client, h.prefix);
    expect(await keysUnder(h.client, h.prefix)).toEqual([]);
    h.client.disconnect();
  });
  return h;
}

export const testPrefix = (): string => `gwtest:${randomBytes(6).toString("hex")}:`;

/** Every key under the prefix (SCAN, as a shared server needs). */
export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  return keys;
}

export async function dropPrefix(client: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  if (keys.length) await client.del(...keys);
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

export interface RedisServer {
  url: string;
  start(): Promise<void>;
  /** SIGKILL: Redis vanishes as in a crash. */
  stop(): Promise<void>;
  /** SIGSTOP / SIGCONT: Redis hangs with its connections open, then goes on. */
  pause(): void;
  resume(): void;
}

/** A private redis-server (no persistence) on a free port, started and stopped by the test. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    url,
    async start() {
      child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
      child.on("error", () => undefined);
      for (let i = 0; i < 50; i++) {
        const probe = testClient(url);
        const up = await probe.connect().then(
          () => probe.ping(),
          () => undefined,
        );
        probe.disconnect();
        if (up) return;
        await sleep(100);
      }
      throw new Error(`redis-server did not start on port ${port}: is redis-server on PATH? (${START.replace(" --port 6379", "")})`);
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGCONT");
      child.kill("SIGKILL");
      await exited;
    },
    pause: () => void child?.kill("SIGSTOP"),
    resume: () => void child?.kill("SIGCONT"),
  };
  await server.start();
  return server;
}
