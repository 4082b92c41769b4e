/**
 * Repeats, byte for byte (docs/cache.md, "What a hit costs"): the same key sending the same
 * body to the same endpoint parses, validates and routes to the same result, and so to the
 * same cache entry. A request whose bytes were answered from the cache before finds that
 * result here by one SHA-256 of its bytes, and skips parsing, validation, routing and the
 * canonical cache key; the cache itself still decides (an expired answer is a miss, and the
 * entry goes). An entry also keeps the answer as it parsed it last, while the cache keeps the
 * same text. Emptied when the catalog or any other stored state changes (gateway.ts), since
 * routes depend on it.
 *
 * Its memory is the cache's (docs/cache.md, "Memory"): at most 10,000 entries, each counted in
 * the budget of `cache.maxBytes` (cache/budget.ts) as its body's bytes plus, once it keeps an
 * answer, that answer's bytes (its parse), and again when the text is its own copy (Redis's
 * answers; the in-process cache's text is shared). An answer the in-process cache drops takes
 * the entries pointing to it along (`forget`).
 */
import { createHash } from "node:crypto";
import type { CacheBudget } from "./budget.js";

interface Entry<T> {
  /** The response cache's key for this request (cache/key.ts). */
  id: string;
  value: T;
  /** Counted for the body, and for the answer kept (0 while none is). */
  bytes: number;
  answerBytes: number;
  /** The kept answer's text when it was parsed, and that parse. */
  text?: string;
  parsed?: unknown;
}

export interface MemoOptions {
  /** The answer texts the memo sees are the in-process cache's own strings (not copies). */
  sharedText: boolean;
  maxEntries?: number;
  /** Bigger bodies are rare repeats, and their hash is most of what parsing them would cost. */
  maxEntryBytes?: number;
}

export class RequestMemo<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** The memo's keys by the response cache key they point to (two keys of one account may share one). */
  private readonly byId = new Map<string, string[]>();
  /** This memo's share of the budget's bytes. */
  bytes = 0;
  private readonly maxEntries: number;
  readonly maxEntryBytes: number;

  constructor(
    private readonly budget: CacheBudget,
    private readonly opts: MemoOptions,
  ) {
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.maxEntryBytes = opts.maxEntryBytes ?? 64 * 1024;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The memo's key for a body: its key id and endpoint too, since both shape what it parses and routes to. */
  digest(keyId: string, endpoint: string, raw: Buffer): string | undefined {
    if (raw.length > this.maxEntryBytes) return undefined;
    return createHash("sha256").update(keyId).update("\0").update(endpoint).update("\0").update(raw).digest("base64");
  }

  get(digest: string): Entry<T> | undefined {
    const e = this.entries.get(digest);
    if (e) (this.entries.delete(digest), this.entries.set(digest, e)); // most recently used
    return e;
  }

  set(digest: string, id: string, value: T, bytes: number): void {
    this.delete(digest);
    this.entries.set(digest, { id, value, bytes, answerBytes: 0 });
    const same = this.byId.get(id);
    if (same) same.push(digest);
    else this.byId.set(id, [digest]);
    this.count(bytes);
    this.fit();
  }

  /**
   * The answer `text` (the cache's, just read) parsed: the entry's parse while the text is the one
   * it parsed, else parsed now and kept on the entry when the budget has room for it.
   */
  parsed(digest: string, text: string): unknown {
    const e = this.entries.get(digest);
    if (e?.text === text) return e.parsed;
    const parsed: unknown = JSON.parse(text);
    if (!e) return parsed;
    this.dropAnswer(e);
    const bytes = Buffer.byteLength(text) * (this.opts.sharedText ? 1 : 2);
    if (bytes + e.bytes > this.budget.max) return parsed;
    Object.assign(e, { text, parsed, answerBytes: bytes });
    this.count(bytes);
    this.fit();
    return parsed;
  }

  /** The cache dropped the answer under `id`: the entries pointing to it go. */
  forget(id: string): void {
    for (const digest of this.byId.get(id) ?? []) this.delete(digest);
  }

  delete(digest: string): void {
    const e = this.entries.get(digest);
    if (!e) return;
    this.entries.delete(digest);
    this.count(-e.bytes - e.answerBytes);
    const same = this.byId.get(e.id)?.filter((d) => d !== digest);
    if (same?.length) this.byId.set(e.id, same);
    else this.byId.delete(e.id);
  }

  clear(): void {
    this.entries.clear();
    this.byId.clear();
    this.count(-this.bytes);
  }

  private count(bytes: number): void {
    this.bytes += bytes;
    this.budget.add(bytes);
  }

  private dropAnswer(e: Entry<T>): void {
    this.count(-e.answerBytes);
    Object.assign(e, { text: undefined, parsed: undefined, answerBytes: 0 });
  }

  /** Within the bounds: the cache's least recently used answers first (and their entries here), then this memo's. */
  private fit(): void {
    if (this.budget.over) this.budget.shrink();
    for (const [digest] of this.entries) {
      if (this.entries.size <= this.maxEntries && !this.budget.over) return;
      this.delete(digest);
    }
  }
}
