/**
 * Leases (docs/fleet.md, "Leases"): on a busy lane (an account, with the key's budget and the
 * member's, at one period) this process holds a slice of the room as ONE hold row (gw_lease,
 * migrations-leases.ts) and admits requests against it in memory, without a round trip. The row
 * may hold more than this process believes, never less: everything it admits is inside the row.
 * An idle lane gives its unused room back; a refusal while another process leases the account
 * asks the holders to give theirs back (NOTIFY gateway_leases) and retries for a second, so
 * exactly N of any number of requests are admitted when the room covers N.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { periodStart, periodStarts, type BudgetHold, type BudgetScope } from "../../core/budget.js";
import { query } from "./db.js";
import { LEASES_CHANNEL } from "./watch.js";

/** Reservations per second on a lane above which it is leased; a quieter lane keeps one hold per request. */
const BUSY_PER_S = 8;
/** A lane unused for this long gives its unused room back. */
const IDLE_MS = 1_000;
/** How long a refused request keeps trying while other processes give their unused room back. */
const REFUSED_RETRY_MS = 1_000;
const RETRY_EVERY_MS = 50;
/** After a refusal on an account, its requests are held one by one (no slices) for this long. */
const PAUSE_MS = 5_000;
const SWEEP_MS = 250;
/** Slices stay far below 2^53, where the held sums must stay (pg/migrations.ts gw_reserve). */
const MAX_SLICE = 2 ** 50;

interface Lane {
  /** The lease's hold row. */
  id: string;
  key: string;
  account: string;
  /** The key whose budget the row also holds, if any. */
  keyId: string | null;
  /** What the row holds as far as this process knows (it may hold more, never less). */
  leased: number;
  /** The worst cases of requests admitted against it and not yet settled. */
  used: number;
  lastUsed: number;
  /** Local admission stops here unless a renewal moves it on: the row must not have expired. */
  validUntil: number;
  growing?: Promise<number>;
}

type Exact = (id: string, account: string, amount: number, budget?: BudgetHold, scope?: BudgetScope) => Promise<boolean>;

export interface LeaseOptions {
  pool: pg.Pool;
  owner: string;
  leaseMs: number;
  /** `fleet.leaseRequests`: a slice is this many times the request's worst case; 0 = no leases. */
  perSlice: number;
  now: () => number;
  /** One hold for one request (gw_reserve). */
  exact: Exact;
  /** False while change notices may be missed (watch.ts): no local admission then. */
  hearing: () => boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const laneKey = (account: string, budget: BudgetHold | undefined, scope: BudgetScope) =>
  [account, budget?.keyId ?? "", budget?.limit ?? "", budget?.since ?? "", scope.member ?? "", periodStart("day", scope.at)].join("\u0000");

export class Leases {
  private readonly lanes = new Map<string, Lane>();
  /** Retired lanes whose row still has to go (once their requests are settled). */
  private readonly draining = new Set<Lane>();
  private readonly rates = new Map<string, { second: number; count: number; prev: number }>();
  private readonly paused = new Map<string, number>();
  private readonly taken = new Map<string, { lane: Lane; part: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: LeaseOptions) {
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  /** Rows of this process the renewal must keep alive. */
  get active(): boolean {
    return this.lanes.size > 0 || this.draining.size > 0;
  }

  /** The renewal that set every row of this process to expire at `sentAt + leaseMs` committed. */
  renewed(sentAt: number): void {
    for (const lane of this.lanes.values()) lane.validUntil = Math.max(lane.validUntil, sentAt + this.o.leaseMs / 2);
  }

  async reserve(id: string, account: string, amount: number, budget?: BudgetHold, scope?: BudgetScope): Promise<boolean> {
    if (scope && this.o.perSlice > 0 && this.o.hearing()) {
      const key = laneKey(account, budget, scope);
      if (this.busy(key) && (this.paused.get(account) ?? 0) <= this.o.now()) {
        const got = await this.fromLane(key, id, account, amount, budget, scope);
        if (got === true) return true;
        if (got === false) return this.refused(id, account, amount, budget, scope);
      }
    }
    if (await this.o.exact(id, account, amount, budget, scope)) return true;
    return this.leasing() ? this.refused(id, account, amount, budget, scope) : false;
  }

  /**
   * A leased request settles: its part leaves the lane once `done` is called, after its settlement
   * committed (split off the row) or failed; until then the row must stay, so the lane keeps it.
   */
  take(id: string): { lease: string; part: number; done: () => void } | undefined {
    const t = this.taken.get(id);
    if (!t) return undefined;
    this.taken.delete(id);
    const done = () => ((t.lane.used -= t.part), (t.lane.leased -= t.part));
    return { lease: t.lane.id, part: t.part, done };
  }

  /** A leased request ends without a charge: its part stays in the lease as unused room. */
  release(id: string): boolean {
    const t = this.taken.get(id);
    if (!t) return false;
    this.taken.delete(id);
    t.lane.used -= t.part;
    return true;
  }

  /** What requests admitted against this process's leases of a key's budget hold (for its readouts). */
  usedBy(keyId: string): number {
    let used = 0;
    for (const lane of [...this.lanes.values(), ...this.draining]) if (lane.keyId === keyId) used += lane.used;
    return used;
  }

  /** A change notice (credits, budgets, keys): every lane retires, the next request opens a new one. */
  changed(): void {
    for (const lane of [...this.lanes.values()]) this.retire(lane);
    void this.drainAll();
  }

  /** Another process was refused on `account`: unused room goes back at once, and no slices for a while. */
  asked(account: string): void {
    this.paused.set(account, this.o.now() + PAUSE_MS);
    void this.giveBack(account);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.changed();
    await this.drainAll();
  }

  private leasing(): boolean {
    return this.o.perSlice > 0;
  }

  private busy(key: string): boolean {
    const second = Math.floor(this.o.now() / 1000);
    let r = this.rates.get(key);
    if (!r) this.rates.set(key, (r = { second, count: 0, prev: 0 }));
    if (r.second !== second) ((r.prev = r.second === second - 1 ? r.count : 0), (r.second = second), (r.count = 0));
    r.count++;
    return r.count >= BUSY_PER_S || r.prev >= BUSY_PER_S;
  }

  /** true admitted, false the room is short, undefined: no lease now (the exact path decides). */
  private async fromLane(key: string, id: string, account: string, amount: number, budget: BudgetHold | undefined, scope: BudgetScope) {
    for (;;) {
      let lane = this.lanes.get(key);
      if (lane && lane.validUntil <= this.o.now()) (this.retire(lane), (lane = undefined));
      if (!lane)
        this.lanes.set(
          key,
          (lane = { id: `lease_${randomUUID()}`, key, account, keyId: budget?.keyId ?? null, leased: 0, used: 0, lastUsed: 0, validUntil: Infinity }),
        );
      if (lane.leased - lane.used >= amount) {
        lane.used += amount;
        lane.lastUsed = this.o.now();
        this.taken.set(id, { lane, part: amount });
        return true;
      }
      if (lane.growing) {
        await lane.growing.catch(() => undefined);
        continue;
      }
      let got: number;
      try {
        got = await (lane.growing = this.grow(lane, amount, budget, scope));
      } catch {
        this.retire(lane);
        return undefined;
      } finally {
        lane.growing = undefined;
      }
      if (got === 0) return false;
      if (got < 0) return void this.retire(lane);
    }
  }

  /** A slice, or else exactly what this request lacks: 1 granted, 0 refused, -1 stale levels. */
  private async grow(lane: Lane, amount: number, budget: BudgetHold | undefined, scope: BudgetScope): Promise<number> {
    const lacking = amount - (lane.leased - lane.used);
    const asks = [Math.min(MAX_SLICE, this.o.perSlice * amount), lacking].filter((a, i, all) => a >= lacking && all.indexOf(a) === i);
    for (const ask of asks) {
      const sentAt = this.o.now();
      const { rows } = await query<{ r: number }>(this.o.pool, "SELECT gw_lease($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS r", [
        lane.id,
        lane.account,
        ask,
        budget?.keyId ?? null,
        budget?.limit ?? null,
        budget?.since ?? null,
        scope.member,
        JSON.stringify(periodStarts(scope.at)),
        this.o.owner,
        sentAt + this.o.leaseMs,
      ]);
      const r = Number(rows[0]?.r ?? 0);
      if (r === 1) {
        lane.leased += ask;
        const until = sentAt + this.o.leaseMs / 2;
        lane.validUntil = lane.validUntil === Infinity ? until : Math.max(lane.validUntil, until);
      }
      if (r !== 0) return r;
    }
    return 0;
  }

  /** The room is short: own unused room back, then, while others lease the account, ask them and retry. */
  private async refused(id: string, account: string, amount: number, budget?: BudgetHold, scope?: BudgetScope): Promise<boolean> {
    this.paused.set(account, this.o.now() + PAUSE_MS);
    if ((await this.giveBack(account)) && (await this.o.exact(id, account, amount, budget, scope))) return true;
    const { rows } = await query<{ x: boolean }>(
      this.o.pool,
      "SELECT EXISTS (SELECT 1 FROM holds WHERE account = $1 AND owner <> $2 AND id LIKE 'lease\\_%' AND amount > 0) AS x",
      [account, this.o.owner],
    );
    if (!rows[0]?.x) return false;
    await query(this.o.pool, "SELECT pg_notify($1, $2)", [LEASES_CHANNEL, account]);
    const until = this.o.now() + REFUSED_RETRY_MS;
    while (this.o.now() < until) {
      await sleep(RETRY_EVERY_MS);
      if (await this.o.exact(id, account, amount, budget, scope)) return true;
    }
    return false;
  }

  /** Retires this account's lanes and gives their unused room back now; true when there was any. */
  private async giveBack(account: string): Promise<boolean> {
    let any = false;
    for (const lane of [...this.lanes.values(), ...this.draining]) {
      if (lane.account !== account) continue;
      any ||= lane.leased > lane.used;
      this.retire(lane);
      await this.drain(lane);
    }
    return any;
  }

  private retire(lane: Lane): void {
    if (this.lanes.get(lane.key) === lane) this.lanes.delete(lane.key);
    this.draining.add(lane);
  }

  private async drainAll(): Promise<void> {
    await Promise.all([...this.draining].map((l) => this.drain(l)));
  }

  /** Unused room back; the row goes once no request of it is left to settle (a failed call is tried again later). */
  private async drain(lane: Lane): Promise<void> {
    if (lane.growing) return;
    const free = lane.leased - lane.used;
    try {
      if (lane.used === 0) {
        this.draining.delete(lane);
        lane.leased = 0;
        await query(this.o.pool, "SELECT gw_lease_shrink($1, NULL)", [lane.id]);
      } else if (free > 0) {
        lane.leased -= free;
        await query(this.o.pool, "SELECT gw_lease_shrink($1, $2)", [lane.id, free]);
      }
    } catch {
      if (lane.used === 0) this.draining.add(lane);
    }
  }

  /** Idle lanes give their unused room back; retired ones drain; old rates go. */
  private async sweep(): Promise<void> {
    const t = this.o.now();
    for (const lane of [...this.lanes.values()]) {
      if (t - lane.lastUsed < IDLE_MS || lane.growing) continue;
      if (lane.used === 0) this.retire(lane);
      else if (lane.leased > lane.used) await this.drain(lane);
    }
    await this.drainAll();
    const second = Math.floor(t / 1000);
    for (const [k, r] of this.rates) if (r.second < second - 2) this.rates.delete(k);
    for (const [a, until] of this.paused) if (until <= t) this.paused.delete(a);
  }
}
