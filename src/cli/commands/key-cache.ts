/**
 * The response cache on the command line (docs/cache.md): `--cache` lets a key's deterministic
 * requests (temperature 0) be answered from the cache, `--cache-nondeterministic` any temperature;
 * `keys update --no-cache` turns it off again. Only while the config's `cache.enabled` is true.
 */
import type { Command } from "commander";
import { UsageError } from "../../core/errors.js";
import type { KeyCacheMode } from "../../store/index.js";

export interface CacheFlags {
  cache?: boolean;
  cacheNondeterministic?: boolean;
}

export function withCacheOptions(cmd: Command, update: boolean): Command {
  cmd
    .option("--cache", "answer this key's temperature-0 requests from the response cache (config cache.enabled)")
    .option("--cache-nondeterministic", "answer this key's requests from the response cache whatever their temperature");
  return update ? cmd.option("--no-cache", "stop answering this key's requests from the response cache") : cmd;
}

/** The key's cache mode the flags ask for; undefined when they ask nothing. */
export function cacheModeOf(opts: CacheFlags): KeyCacheMode | undefined {
  if (opts.cache === false && opts.cacheNondeterministic) throw new UsageError("--no-cache cannot be combined with --cache-nondeterministic");
  if (opts.cacheNondeterministic) return "nondeterministic";
  if (opts.cache === undefined) return undefined;
  return opts.cache ? "on" : "off";
}
