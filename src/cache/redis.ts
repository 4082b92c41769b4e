/**
 * The response cache shared by a fleet through Redis (docs/cache.md): one string key per answer
 * under the configured prefix (`<prefix>cache:<sha256>`), written with `SET … EX ttl`, none larger
 * than `maxEntryBytes`; Redis's memory for the cache is so bounded by what a `ttl` of traffic
 * stores. A Redis that fails or does not answer in time is a miss (and a store skipped), never an error.
 */
import type { Redis } from "ioredis";
import type { ResponseCache } from "./policy.js";

export class RedisCache implements ResponseCache {
  constructor(
    readonly client: Pick<Redis, "get" | "set">,
    private readonly prefix: string,
    private readonly ttl: number,
    private readonly maxEntryBytes: number,
  ) {}

  async get(key: string): Promise<string | undefined> {
    try {
      return (await this.client.get(`${this.prefix}cache:${key}`)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: string): Promise<void> {
    if (Buffer.byteLength(value) > this.maxEntryBytes) return;
    try {
      await this.client.set(`${this.prefix}cache:${key}`, value, "EX", this.ttl);
    } catch {
      // not stored: the next identical request is a miss
    }
  }
}
