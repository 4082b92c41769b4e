/**
 * doctor's Redis check: a configured Redis (`redis`, or GATEWAY_REDIS) must answer PING, else
 * one FAIL line; the URL is shown as host:port only, never its password (docs/cli.md, "The first run").
 */
import type { RedisSettings } from "../config/config.js";
import { hostOf } from "../app/store-line.js";
import type { Finding } from "./doctor-checks.js";

const WAIT_MS = 3000;

export async function redisFinding(settings: RedisSettings | undefined): Promise<Finding | undefined> {
  if (!settings) return undefined;
  const where = `Redis at ${hostOf(settings.url, 6379)}`;
  const { Redis } = await import("ioredis");
  // One try, no queue, no reconnection: doctor reports what it finds now.
  const client = new Redis(settings.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: WAIT_MS,
  });
  let cause: Error | undefined; // the socket's error says more than "Connection is closed."
  client.on("error", (err: Error) => (cause ??= err)); // reported below, once
  try {
    await client.connect();
    const pong = await client.ping();
    return { check: "redis", status: "ok", message: `${where} answers PING (${pong}): limits and circuits are shared` };
  } catch (err) {
    const reason = scrub((cause ?? (err as Error)).message, settings.url);
    return { check: "redis", status: "fail", message: `${where} does not answer PING (${reason}): rate limits would fall back to each process` };
  } finally {
    client.disconnect();
  }
}

/** An error message without the URL's password, should a client ever quote it. */
function scrub(message: string, url: string): string {
  try {
    const { password } = new URL(url);
    return password ? message.replaceAll(decodeURIComponent(password), "***").replaceAll(password, "***") : message;
  } catch {
    return message;
  }
}
