/**
 * Repeats, byte for byte (docs/cache.md, "What a hit costs"): the same key sending the same
 * body to the same endpoint parses, validates and routes to the same result, and so to the
 * same cache entry. A request whose bytes were answered from the cache before finds that
 * result here by one SHA-256 of its bytes, and skips parsing, validation, routing and the
 * canonical cache key; the cache itself still decides (an expired answer is a miss, and the
 * entry goes). Bounded by entries and by the bytes of the bodies it stands for; emptied when
 * the catalog or any other stored state changes (gateway.ts), since routes depend on it.
 */
import { createHash } from "node:crypto";

interface Entry<T> {
  /** The response cache's key for this request (cache/key.ts). */
  id: string;
  value: T;
  bytes: number;
}

export class RequestMemo<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxBytes = 16 * 1024 * 1024,
    /** Bigger bodies are rare repeats, and their hash is most of what parsing them would cost. */
    readonly maxEntryBytes = 64 * 1024,
  ) {}

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
    this.entries.set(digest, { id, value, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }

  delete(digest: string): void {
    const e = this.entries.get(digest);
    if (e) (this.entries.delete(digest), (this.bytes -= e.bytes));
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
