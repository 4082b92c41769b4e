/**
 * Retention: per-request ledger rows (and their attempts) are kept `retention.days`, then
 * folded into daily totals per UTC day, account, key, model and BYOK flag that are kept for
 * good. Usage reads both, so totals never change; balances are never touched.
 *
 * Work goes an hour of ledger at a time, each hour one transaction (rollup + delete), so a
 * first prune of a large old database never holds the write lock, or the event loop of a
 * serving process, for long: requests settle between two steps.
 */
import type { PruneResult, Store } from "../store/index.js";

const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Rows created before this are pruned: the UTC midnight `days` days back, so whole days go together. */
export function retentionCutoff(now: number, days: number): number {
  const t = now - days * DAY_MS;
  return t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
}

/** One transaction per hour of ledger that is older than `before`, oldest first; gaps are skipped. */
async function* pruneSteps(store: Store, before: number): AsyncGenerator<PruneResult> {
  for (let oldest = await store.oldestLedgerAt(); oldest !== undefined && oldest < before; oldest = await store.oldestLedgerAt()) {
    const hourEnd = oldest - (((oldest % HOUR_MS) + HOUR_MS) % HOUR_MS) + HOUR_MS;
    const step = await store.prune(Math.min(hourEnd, before));
    yield step;
    if (step.rows === 0) return; // the oldest row did not go: never spin on it
  }
}

const add = (a: PruneResult, b: PruneResult): PruneResult => ({ rows: a.rows + b.rows, attempts: a.attempts + b.attempts, rollups: a.rollups + b.rollups });
const none = (): PruneResult => ({ rows: 0, attempts: 0, rollups: 0 });

/** Everything older than `before`, at once (`gateway db prune`). */
export async function pruneAll(store: Store, before: number): Promise<PruneResult> {
  await store.pruneResponses(before); // stored responses follow the ledger's retention
  let total = none();
  for await (const step of pruneSteps(store, before)) total = add(total, step);
  return total;
}

/** The same, yielding to the event loop between steps; stops early once `stopped()` says so. */
async function pruneInBackground(store: Store, before: number, stopped: () => boolean): Promise<PruneResult> {
  let total = none();
  for await (const step of pruneSteps(store, before)) {
    total = add(total, step);
    await new Promise((resolve) => setImmediate(resolve));
    if (stopped()) break;
  }
  return total;
}

/**
 * `gateway serve`: prunes at start and then once a day, off the request path. The timers are
 * unref'd (they never keep a stopping process alive); call the returned stop before closing
 * the store. A failure is logged and retried the next day, never fatal.
 */
export function startRetention(store: Store, days: number, log: (line: string) => void, now = Date.now): () => void {
  let stopped = false;
  let running = false;
  const run = async () => {
    if (stopped || running) return;
    running = true;
    const before = retentionCutoff(now(), days);
    try {
      const r = await pruneInBackground(store, before, () => stopped);
      if (r.rows > 0)
        log(
          `retention: folded ${r.rows} ledger rows older than ${new Date(before).toISOString()} into daily totals (${r.rollups} rollups, ${r.attempts} attempts dropped)`,
        );
      // Stored responses (POST /v1/responses) are kept as long as the ledger rows of their requests.
      const responses = await store.pruneResponses(before);
      if (responses > 0) log(`retention: deleted ${responses} stored responses older than ${new Date(before).toISOString()}`);
    } catch (err) {
      if (!stopped) log(`retention: prune failed, retrying in a day: ${(err as Error).message}`);
    } finally {
      running = false;
    }
  };
  const first = setTimeout(run, 0);
  const daily = setInterval(run, DAY_MS);
  first.unref();
  daily.unref();
  return () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(daily);
  };
}
