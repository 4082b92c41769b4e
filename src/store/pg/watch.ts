/**
 * Change notices on PostgreSQL: every write of keys, credits, BYOK keys or the catalog sends
 * NOTIFY on one channel in its transaction; each process LISTENs on a dedicated connection and
 * drops its caches at once (a revocation reaches every process well within contract.md §7's
 * second). A lost connection is reconnected with a capped backoff, and listeners are called
 * on reconnect, since a notice sent while disconnected is lost.
 */
import pg from "pg";

export const CHANGES_CHANNEL = "gateway_changes";

/** Sent inside a write's transaction: other processes hear of it once it commits. */
export const notify = (c: pg.PoolClient) => c.query(`NOTIFY ${CHANGES_CHANNEL}`);
const MAX_BACKOFF_MS = 5_000;

export function watchNotifications(url: string) {
  const listeners = new Set<() => void>();
  let client: pg.Client | undefined;
  let stopped = false;
  let backoff = 250;
  let timer: NodeJS.Timeout | undefined;
  let started = false;

  const fire = () => {
    for (const l of listeners) l();
  };
  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
    c.on("error", () => undefined);
    c.on("end", () => {
      if (client === c) client = undefined;
      retry();
    });
    c.on("notification", fire);
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (stopped) return void c.end().catch(() => undefined);
      client = c;
      backoff = 250;
      fire(); // whatever changed while no one listened
    } catch {
      c.end().catch(() => undefined);
    }
  };
  const retry = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, backoff);
    timer.unref();
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  };

  return {
    add(listener: () => void): () => void {
      listeners.add(listener);
      if (!started) ((started = true), void connect());
      return () => void listeners.delete(listener);
    },
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      listeners.clear();
      await client?.end().catch(() => undefined);
    },
  };
}
