/**
 * The bytes the response cache holds in this process, within `cache.maxBytes` (docs/cache.md,
 * "Memory"): the in-process cache's answers and the request memo's entries (their bodies and
 * their parsed copies of answers) count against one bound. When the memo needs room, the cache's
 * least recently used answers go first (`shrink`, wired by cache/open.ts), and with each the memo
 * entries that point to it; then the memo's own least recently used entries.
 */
export class CacheBudget {
  /** Bytes counted now (UTF-8 bytes of what is kept; a parsed copy counts as the bytes of its text). */
  used = 0;
  /** Frees the in-process cache's least recently used answers until the bound holds; nothing with Redis. */
  shrink: () => void = () => {};

  constructor(readonly max: number) {}

  get over(): boolean {
    return this.used > this.max;
  }
}
