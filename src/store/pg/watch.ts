/**
 * Change notices on PostgreSQL (docs/fleet.md, "Change propagation"): every write of keys,
 * credits, BYOK keys or the catalog sends NOTIFY on one channel in its transaction; each process
 * LISTENs on a dedicated connection and drops its caches at once.
 *
 * A listening connection can die without closing (a NAT or firewall forgetting the flow): queries
 * on the pool still work and nothing would ever be heard again. So the process NOTIFYs a
 * heartbeat on a channel of its own every HEARTBEAT_MS on that same connection and expects to
 * hear it back: not heard for DEAF_MS, the listener is deaf (`hearing()` is false: the key cache
 * is bypassed, access/keys.ts), its socket is dropped and it reconnects with a capped backoff.
 * Listeners are called whenever it hears again, since notices sent meanwhile are lost.
 */
import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import pg from "pg";
import { connectionErrorLine } from "../../core/connection-errors.js";

export const CHANGES_CHANNEL = "gateway_changes";
/** A process refused on an account asks the others to give back their unused leased room (lease.ts). */
export const LEASES_CHANNEL = "gateway_leases";

/** Sent inside a write's transaction: other processes hear of it once it commits. */
export const notify = (c: pg.PoolClient) => c.query(`NOTIFY ${CHANGES_CHANNEL}`);

/** How often the listener NOTIFYs itself. */
const HEARTBEAT_MS = 1_000;
/** Own heartbeat not heard for this long: the listener is deaf (the bound docs/fleet.md promises). */
export const DEAF_MS = 3_000;
const MAX_BACKOFF_MS = 5_000;

/** pg.Client has no destroy(): end() on a silent connection waits for a FIN that never comes. */
const dropSocket = (c: pg.Client) => (c as unknown as { connection?: { stream?: Socket } }).connection?.stream?.destroy();

export function watchNotifications(url: string, now: () => number = Date.now) {
  const listeners = new Set<() => void>();
  const askers = new Set<(account: string) => void>();
  const heartbeat = `gateway_heartbeat_${randomBytes(8).toString("hex")}`;
  const onError = connectionErrorLine("PostgreSQL change listener");
  let client: pg.Client | undefined;
  let current: pg.Client | undefined;
  let heardAt = -Infinity;
  let deaf = true;
  let stopped = false;
  let beating = false;
  let backoff = 250;
  let timer: NodeJS.Timeout | undefined;
  let pulse: NodeJS.Timeout | undefined;

  const fire = () => {
    for (const l of listeners) l();
  };
  const heard = () => {
    heardAt = now();
    // Hearing again after a gap: whatever changed meanwhile is re-read.
    if (deaf) ((deaf = false), fire());
  };
  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000, keepAlive: true, keepAliveInitialDelayMillis: 1_000 });
    current = c;
    c.on("error", onError);
    c.on("end", () => lost(c));
    c.on("notification", (n) => {
      if (n.channel === heartbeat) heard();
      else if (n.channel === LEASES_CHANNEL) for (const a of askers) a(n.payload ?? "");
      else fire();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGES_CHANNEL}; LISTEN ${LEASES_CHANNEL}; LISTEN ${heartbeat}`);
      if (stopped || current !== c) return void c.end().catch(() => undefined);
      client = c;
      backoff = 250;
      heard();
    } catch (err) {
      onError(err);
      dropSocket(c);
      lost(c);
    }
  };
  const lost = (c: pg.Client) => {
    if (current !== c) return;
    current = client = undefined;
    deaf = true;
    retry();
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
  const beat = () => {
    const c = client;
    if (!c) return;
    if (now() - heardAt > DEAF_MS) {
      deaf = true;
      onError(new Error(`own heartbeat not heard for ${DEAF_MS} ms: dropping the connection`));
      dropSocket(c);
      return lost(c);
    }
    // One in flight at most: a silent connection must not pile up queries.
    if (beating) return;
    beating = true;
    c.query(`NOTIFY ${heartbeat}`)
      .catch(() => undefined)
      .finally(() => (beating = false));
  };
  const start = () => {
    pulse = setInterval(beat, HEARTBEAT_MS);
    pulse.unref();
    void connect();
  };

  return {
    add(listener: () => void): () => void {
      listeners.add(listener);
      if (!pulse && !stopped) start();
      return () => void listeners.delete(listener);
    },
    /** Told the account of every request refused while another process leased it (lease.ts). */
    asked(listener: (account: string) => void): void {
      askers.add(listener);
    },
    /** False while notices may be missed: not connected, or own heartbeat unheard for DEAF_MS. */
    hearing: (): boolean => client !== undefined && now() - heardAt <= DEAF_MS,
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      clearInterval(pulse);
      listeners.clear();
      askers.clear();
      const c = client;
      current = client = undefined;
      if (c) await Promise.race([c.end().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())]).finally(() => dropSocket(c));
    },
  };
}
