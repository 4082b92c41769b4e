/**
 * Group commit (docs/fleet.md, "Group commit"): settlements are queued and written in batches,
 * one statement per batch (gw_settle_batch, migrations-leases.ts), at most MAX_BATCH at a time;
 * each settlement's promise resolves once its batch committed. While a batch is being written the
 * next one fills, so under load a batch carries many settlements and the database commits once
 * for them all. Batches commit with synchronous_commit off: a crash of the database server itself
 * may lose its last moment of commits, each whole (the charge with its ledger row), never half.
 */
import type pg from "pg";
import { transaction } from "./db.js";

const MAX_BATCH = 256;

export interface SettleItem {
  /** The lease the request was admitted against, and its part of it (lease.ts); null: a hold of its own or none. */
  lease: string | null;
  part: number;
  hold: string | null;
  /** The ledger entry, as gw_settle takes it. */
  e: Record<string, unknown> & { account: string };
  starts: Record<string, number>;
  attempts: unknown[];
}

interface Queued {
  item: SettleItem;
  resolve(charged: number): void;
  reject(err: unknown): void;
}

export class GroupCommit {
  private queue: Queued[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly pool: pg.Pool) {}

  /** Resolves with what was charged once the settlement's batch committed. */
  settle(item: SettleItem): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.writing ??= this.drain();
    });
  }

  /** Everything queued so far is written (or failed). */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    // Settlements arriving in the same turn of the event loop join the first batch.
    await new Promise((r) => setImmediate(r));
    try {
      while (this.queue.length) await this.write(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.writing = null;
    }
  }

  private async write(batch: Queued[]): Promise<void> {
    // One order of accounts in every batch of every process: their rows are locked in it.
    const sorted = [...batch].sort((a, b) => (a.item.e.account < b.item.e.account ? -1 : a.item.e.account > b.item.e.account ? 1 : 0));
    try {
      const charged = await this.commit(sorted.map((q) => q.item));
      sorted.forEach((q, i) => q.resolve(charged[i] ?? 0));
    } catch (err) {
      if (sorted.length === 1 || (err as { code?: string }).code === "store_unavailable") return sorted.forEach((q) => q.reject(err));
      // One settlement the database refuses must not fail the others: each alone.
      for (const q of sorted) await this.commit([q.item]).then((c) => q.resolve(c[0] ?? 0), q.reject);
    }
  }

  private commit(items: SettleItem[]): Promise<number[]> {
    return transaction(this.pool, async (c) => {
      await c.query("SET LOCAL synchronous_commit = off");
      const { rows } = await c.query<{ charged: string[] }>("SELECT gw_settle_batch($1::jsonb) AS charged", [JSON.stringify(items)]);
      return rows[0]!.charged.map(Number);
    });
  }
}
