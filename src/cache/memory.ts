/**
 * The response cache in this process (SQLite mode, docs/cache.md): a least-recently-used map
 * bounded by entries and by bytes (each entry's key plus its answer, UTF-8, counted in the
 * budget it shares with the request memo: cache/budget.ts), each entry expiring `ttl` seconds
 * after it was stored. A Map keeps insertion order: a read moves the entry to the end, eviction
 * takes from the front. Every entry that goes (evicted, expired, replaced) is told to `dropped`,
 * so the memo's entries pointing to it go too.
 */
import { CacheBudget } from "./budget.js";
import type { ResponseCache } from "./policy.js";

interface Entry {
  value: string;
  bytes: number;
  expires: number;
}

export interface MemoryCacheLimits {
  ttl: number;
  maxEntries: number;
  maxBytes: number;
  maxEntryBytes: number;
}

export class MemoryCache implements ResponseCache {
  private readonly entries = new Map<string, Entry>();
  /** Bytes of every entry kept (keys and answers): never above `maxBytes`. */
  bytes = 0;
  /** Told each key whose answer is no longer kept. */
  dropped: (key: string) => void = () => {};

  constructor(
    private readonly limits: MemoryCacheLimits,
    private readonly now: () => number,
    private readonly budget = new CacheBudget(limits.maxBytes),
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Promise<string | undefined> {
    const e = this.entries.get(key);
    if (!e) return Promise.resolve(undefined);
    if (e.expires <= this.now()) {
      this.remove(key, e);
      return Promise.resolve(undefined);
    }
    this.entries.delete(key);
    this.entries.set(key, e); // most recently used
    return Promise.resolve(e.value);
  }

  set(key: string, value: string): Promise<void> {
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(value);
    if (bytes > this.limits.maxEntryBytes || bytes > this.limits.maxBytes) return Promise.resolve();
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, { value, bytes, expires: this.now() + this.limits.ttl * 1000 });
    this.bytes += bytes;
    this.budget.add(bytes);
    this.evict();
    return Promise.resolve();
  }

  /** Least recently used first, until both bounds hold (the budget's bytes include the memo's). */
  evict(): void {
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && !this.budget.over) return;
      this.remove(k, e);
    }
  }

  private remove(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.bytes;
    this.budget.add(-e.bytes);
    this.dropped(key);
  }
}
