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
import type { BudgetHold, BudgetScope } from "../../core/budget-periods.js";
import { askOthers, growRow, laneKey, shrinkRow, Traffic, type Lane } from "./lease-rows.js";

/** A lane unused for this long gives its unused room back. */
const IDLE_MS = 1_000;
/** How long a refused request keeps trying while other processes give their unused room back. */
const REFUSED_RETRY_MS = 1_000;
const RETRY_EVERY_MS = 50;
const SWEEP_MS = 250;
/** Slices stay far below 2^53, where the held sums must stay (pg/migrations.ts gw_reserve). */
const MAX_SLICE = 2 ** 50;

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

export class Leases {
  private readonly lanes = new Map<string, Lane>();
  /** Retired lanes whose row still has to go (once their requests are settled). */
  private readonly draining = new Set<Lane>();
  private readonly traffic: Traffic;
  private readonly taken = new Map<string, { lane: Lane; part: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: LeaseOptions) {
    this.traffic = new Traffic(o.now);
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
      if (this.traffic.busy(key) && !this.traffic.isPaused(account)) {
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
    this.traffic.pause(account);
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
      const row = { id: lane.id, account: lane.account, owner: this.o.owner, expires: sentAt + this.o.leaseMs };
      const r = await growRow(this.o.pool, row, ask, budget, scope);
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
    this.traffic.pause(account);
    if ((await this.giveBack(account)) && (await this.o.exact(id, account, amount, budget, scope))) return true;
    if (!(await askOthers(this.o.pool, account, this.o.owner))) return false;
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
        await shrinkRow(this.o.pool, lane.id, null);
      } else if (free > 0) {
        lane.leased -= free;
        await shrinkRow(this.o.pool, lane.id, free);
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
    this.traffic.prune();
  }
}
