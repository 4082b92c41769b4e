/**
 * The response cache in this process (SQLite mode, docs/cache.md): a least-recently-used map
 * bounded by entries and by bytes (each entry's key plus its answer, UTF-8), each entry
 * expiring `ttl` seconds after it was stored. A Map keeps insertion order: a read moves the
 * entry to the end, eviction takes from the front.
 */
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

  constructor(
    private readonly limits: MemoryCacheLimits,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Promise<string | undefined> {
    const e = this.entries.get(key);
    if (!e) return Promise.resolve(undefined);
    this.entries.delete(key);
    if (e.expires <= this.now()) {
      this.bytes -= e.bytes;
      return Promise.resolve(undefined);
    }
    this.entries.set(key, e); // most recently used
    return Promise.resolve(e.value);
  }

  set(key: string, value: string): Promise<void> {
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(value);
    if (bytes > this.limits.maxEntryBytes || bytes > this.limits.maxBytes) return Promise.resolve();
    const old = this.entries.get(key);
    if (old) (this.entries.delete(key), (this.bytes -= old.bytes));
    this.entries.set(key, { value, bytes, expires: this.now() + this.limits.ttl * 1000 });
    this.bytes += bytes;
    this.evict();
    return Promise.resolve();
  }

  /** Least recently used first, until both bounds hold. */
  private evict(): void {
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) return;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }
}
