/**
 * The response cache and its request memo as the config asks for them (docs/cache.md): in Redis
 * with one, else in this process; both within one budget of `cache.maxBytes` in this process
 * (cache/byte-budget.ts). In process, an answer the cache drops takes the memo's entries pointing to
 * it along, and the memo makes room by dropping the cache's least recently used answers first.
 */
import type { Route } from "../catalog/catalog.js";
import type { Config } from "../config/config.js";
import { CacheBudget } from "./byte-budget.js";
import { MemoryCache } from "./memory.js";
import type { ResponseCache } from "./policy.js";
import { RedisCache } from "./redis.js";
import { RequestMemo } from "./request-memo.js";

/** What the memo keeps of a request answered from the cache: its parsed body and its first route. */
export interface Remembered {
  body: object;
  route: Route;
}

export interface OpenCache {
  cache: ResponseCache;
  memo: RequestMemo<Remembered>;
}

export function openCache(
  config: Config["cache"],
  redis: { client: RedisCache["client"]; prefix: string } | undefined,
  now: () => number,
): OpenCache | undefined {
  if (!config.enabled) return undefined;
  const budget = new CacheBudget(config.maxBytes);
  if (redis)
    return { cache: new RedisCache(redis.client, redis.prefix, config.ttl, config.maxEntryBytes), memo: new RequestMemo(budget, { sharedText: false }) };
  const cache = new MemoryCache(config, now, budget);
  const memo = new RequestMemo<Remembered>(budget, { sharedText: true });
  cache.dropped = (id) => memo.forget(id);
  budget.shrink = () => cache.evict();
  return { cache, memo };
}
