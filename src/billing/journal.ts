/**
 * The in-flight journal (docs/limits.md, "after a kill"). Holds live in memory, so a killed
 * process would leave its open streams unbilled. Every JOURNAL_MS the streams in flight are
 * written down with what they delivered so far; a settlement drops its row in its own
 * transaction; at start, rows a stopped process left are settled as `cancelled` with that
 * estimate. So a kill leaves unbilled at most the last JOURNAL_MS of each open stream, and
 * streams younger than that. Short answers never touch the journal. A stream whose settlement
 * is being retried (billing/settle-retry.ts) stays here with its final row until it lands.
 */
import type { Store } from "../store/index.js";
import type { InflightRow, LedgerEntry } from "../store/index.js";

const JOURNAL_MS = 2_000;

type Snapshot = () => Promise<InflightRow | undefined>;

export class InflightJournal {
  private readonly live = new Map<string, Snapshot>();
  private readonly timer: NodeJS.Timeout;
  private writing = false;
  private readonly stopped = new AbortController();
  /** Aborts when the gateway stops: settlements still retrying make one last attempt. */
  readonly closing = this.stopped.signal;

  constructor(
    private readonly store: Store,
    /** Where a failed write is said (the gateway's log: observability/log.ts notice). */
    private readonly warn: (line: string) => void,
    intervalMs = JOURNAL_MS,
  ) {
    this.timer = setInterval(() => void this.write(), intervalMs);
    this.timer.unref();
  }

  /** A stream that started (again: its snapshot is replaced); the returned function ends its tracking (its settlement drops the row). */
  track(requestId: string, snapshot: Snapshot): () => void {
    this.live.set(requestId, snapshot);
    return () => void this.live.delete(requestId);
  }

  async write(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      const rows = await Promise.all([...this.live.values()].map((snap) => snap().catch(() => undefined)));
      await this.store.journalInflight(rows.filter((r): r is InflightRow => r !== undefined));
    } catch (err) {
      this.warn(`[gateway] the in-flight journal could not be written: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.writing = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.stopped.abort();
  }
}

/** At start: streams a killed process left open are billed for what they had delivered. */
export async function settleLeftovers(store: Store, now: number): Promise<number> {
  const rows = await store.leftInflight();
  await Promise.all(rows.map((r) => store.settle(null, leftoverEntry(r, now), [])));
  return rows.length;
}

function leftoverEntry(r: InflightRow, now: number): LedgerEntry {
  return {
    requestId: r.requestId,
    createdAt: r.createdAt,
    account: r.account,
    keyId: r.keyId,
    model: r.model,
    provider: r.provider,
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    cost: r.byok ? 0 : r.listCost,
    listCost: r.listCost,
    byok: r.byok,
    usageSource: "estimated",
    status: "cancelled",
    httpStatus: 200,
    latencyMs: Math.max(0, now - r.createdAt),
    attempts: 0,
  };
}
