/**
 * The bytes the response cache holds in this process, within `cache.maxBytes` (docs/cache.md,
 * "Memory"): the in-process cache's answers and the request memo's entries (their bodies and
 * their parsed copies of answers) count against one bound. When the memo needs room, the cache's
 * least recently used answers go first (`shrink`, wired by cache/open.ts), and with each the memo
 * entries that point to it; then the memo's own least recently used entries.
 * What it holds is also told to one process-wide listener (`onCacheHeld`): `gateway serve` sizes
 * V8's heap for memory while the cache keeps a large live set (src/cli/heap-under-load.ts).
 */
let listener: ((held: number) => void) | undefined;

/** One listener, told the budget's bytes on every change: it must stay a comparison. */
export function onCacheHeld(follow: ((held: number) => void) | undefined): void {
  listener = follow;
}

export class CacheBudget {
  /** Bytes counted now (UTF-8 bytes of what is kept; a parsed copy counts as the bytes of its text). */
  used = 0;
  /** Frees the in-process cache's least recently used answers until the bound holds; nothing with Redis. */
  shrink: () => void = () => {};

  constructor(readonly max: number) {}

  get over(): boolean {
    return this.used > this.max;
  }

  /** Counts bytes kept (positive) or let go (negative). */
  add(bytes: number): void {
    this.used += bytes;
    listener?.(this.used);
  }
}
