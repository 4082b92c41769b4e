/**
 * Whether one request may use the response cache (docs/cache.md): the config enables the
 * feature, the key opts in (`--cache`, or `--cache-nondeterministic` for any temperature), and
 * the request does not refuse it (`Cache-Control: no-store`: neither read nor store; `no-cache`:
 * store but do not read). Never for `n > 1`; without `--cache-nondeterministic` only for
 * `temperature: 0` (absent means the provider's default, which is not 0).
 */
import type { KeyRecord } from "../store/index.js";

/** Where answers are kept: this process (memory.ts) or Redis (redis.ts). Neither throws. */
export interface ResponseCache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}

/** What the request may do with the cache; `bypass` answers `X-Gateway-Cache: bypass`. */
export type CacheUse = "bypass" | { read: boolean };

/** The request fields the rules read. */
interface Sampling {
  n?: number | undefined;
  temperature?: number | undefined;
}

export function cacheUse(key: KeyRecord, req: Sampling, cacheControl: string | undefined): CacheUse {
  const mode = key.cache ?? "off";
  if (mode === "off" || (req.n ?? 1) > 1) return "bypass";
  if (mode !== "nondeterministic" && req.temperature !== 0) return "bypass";
  const directives = (cacheControl ?? "").toLowerCase();
  if (/(^|[\s,])no-store($|[\s,])/.test(directives)) return "bypass";
  return { read: !/(^|[\s,])no-cache($|[\s,])/.test(directives) };
}
