/**
 * The `redis` setting and GATEWAY_REDIS (docs/fleet.md): a URL or `{url, prefix}`, prefix
 * `gw:` by default, the variable over the config; and the line `serve` says when several
 * processes share PostgreSQL without a Redis.
 */
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { parseConfig, redisOf } from "../src/config/config.js";
import { UsageError } from "../src/core/errors.js";
import type { Gateway } from "../src/gateway.js";
import { startupWarnings } from "../src/app/startup-check.js";
import { startGateway } from "./helpers/gateway.js";

test("a URL, or {url, prefix}; the prefix defaults to gw:", () => {
  expect(parseConfig({}).redis).toBeUndefined();
  expect(parseConfig({ redis: "redis://127.0.0.1:6379" }).redis).toEqual({ url: "redis://127.0.0.1:6379", prefix: "gw:" });
  expect(parseConfig({ redis: { url: "rediss://:pw@cache:6380/2", prefix: "fleet-a:" } }).redis).toEqual({
    url: "rediss://:pw@cache:6380/2",
    prefix: "fleet-a:",
  });
  expect(parseConfig({ redis: { url: "redis://h:6379" } }).redis).toEqual({ url: "redis://h:6379", prefix: "gw:" });
  // Empty when the variable is unset: no Redis.
  expect(parseConfig({ redis: "${GATEWAY_REDIS_URL:-}" }, {}).redis).toBeUndefined();
});

test("a bad value names the redis key", () => {
  expect(() => parseConfig({ redis: "http://127.0.0.1:6379" })).toThrow(/redis/);
  expect(() => parseConfig({ redis: { url: "redis://h", prefix: "" } })).toThrow(/redis/);
  expect(() => parseConfig({ redis: { url: "redis://h", prefx: "x" } })).toThrow(/redis/);
});

test("GATEWAY_REDIS overrides the URL and keeps the configured prefix; a bad one is one usage line without its password", () => {
  const config = parseConfig({ redis: { url: "redis://from-config:6379", prefix: "p:" } });
  expect(redisOf(config, {})).toEqual({ url: "redis://from-config:6379", prefix: "p:" });
  expect(redisOf(config, { GATEWAY_REDIS: "redis://from-env:6379" })).toEqual({ url: "redis://from-env:6379", prefix: "p:" });
  expect(redisOf(parseConfig({}), { GATEWAY_REDIS: "redis://from-env:6379" })).toEqual({ url: "redis://from-env:6379", prefix: "gw:" });
  let err: unknown;
  try {
    redisOf(parseConfig({}), { GATEWAY_REDIS: "tcp://user:hunter2@host:6379" });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toMatch(/^GATEWAY_REDIS: expected a redis:\/\/ or rediss:\/\/ URL/);
  expect((err as Error).message).not.toContain("hunter2");
});

test("the example config documents redis", () => {
  expect(readFileSync("gateway.config.example.yaml", "utf8")).toMatch(/^# redis:\n#   url: redis:\/\/127\.0\.0\.1:6379\n#   prefix: "gw:"$/m);
});

test("serve says once that limits are per process when the store is PostgreSQL and no Redis is configured", async () => {
  const gw = await startGateway({});
  try {
    const real = gw.server.gateway;
    const line = /^\[gateway\] no Redis configured .*rate limits are per process/;
    expect(startupWarnings(real, {}).filter((l) => line.test(l))).toEqual([]); // SQLite: one process, nothing to say
    // The PostgreSQL store is not in this branch: its `kind` is what the decision reads.
    const onPostgres = { ...real, store: { ...real.store, kind: "postgres" } } as Gateway;
    expect(startupWarnings(onPostgres, {}).filter((l) => line.test(l))).toHaveLength(1);
    expect(startupWarnings(onPostgres, { GATEWAY_REDIS: "redis://127.0.0.1:6379" }).filter((l) => line.test(l))).toEqual([]);
    const withRedis = { ...onPostgres, config: parseConfig({ redis: "redis://127.0.0.1:6379" }) } as Gateway;
    expect(startupWarnings(withRedis, {}).filter((l) => line.test(l))).toEqual([]);
  } finally {
    await gw.close();
  }
});
