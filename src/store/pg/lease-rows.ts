/**
 * What leases (lease.ts, docs/fleet.md "Leases") say to PostgreSQL and how they tell a busy lane:
 * the lease row grown or shrunk (gw_lease, gw_lease_shrink in migrations-leases.ts), the question
 * whether other processes lease an account and the request that they give their room back; and
 * the per-lane rate and per-account pauses that decide when to lease at all.
 */
import type pg from "pg";
import { periodStart, periodStarts, type BudgetHold, type BudgetScope } from "../../core/budget-periods.js";
import { query } from "./db.js";
import { LEASES_CHANNEL } from "./watch.js";

/** Reservations per second on a lane above which it is leased; a quieter lane keeps one hold per request. */
const BUSY_PER_S = 8;
/** After a refusal on an account, its requests are held one by one (no slices) for this long. */
const PAUSE_MS = 5_000;

/** A lane: what one lease row of this process holds and what it has admitted against it. */
export interface Lane {
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

/** Requests of one lane share a lease: the same account, key budget, member and day (a new period is a new lane). */
export const laneKey = (account: string, budget: BudgetHold | undefined, scope: BudgetScope) =>
  [account, budget?.keyId ?? "", budget?.limit ?? "", budget?.since ?? "", scope.member ?? "", periodStart("day", scope.at)].join("\u0000");

/** gw_lease: 1 granted, 0 refused (the room is short), -1 the lease's levels changed since it opened. */
export async function growRow(
  pool: pg.Pool,
  row: { id: string; account: string; owner: string; expires: number },
  ask: number,
  budget: BudgetHold | undefined,
  scope: BudgetScope,
): Promise<number> {
  const { rows } = await query<{ r: number }>(pool, "SELECT gw_lease($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS r", [
    row.id,
    row.account,
    ask,
    budget?.keyId ?? null,
    budget?.limit ?? null,
    budget?.since ?? null,
    scope.member,
    JSON.stringify(periodStarts(scope.at)),
    row.owner,
    row.expires,
  ]);
  return Number(rows[0]?.r ?? 0);
}

/** Gives `amount` of the lease back (null: all of it, and the row goes). */
export async function shrinkRow(pool: pg.Pool, id: string, amount: number | null): Promise<void> {
  await query(pool, "SELECT gw_lease_shrink($1, $2)", [id, amount]);
}

/** When another process leases `account`, asks every holder to give its unused room back; false when none does. */
export async function askOthers(pool: pg.Pool, account: string, owner: string): Promise<boolean> {
  const { rows } = await query<{ x: boolean }>(
    pool,
    "SELECT EXISTS (SELECT 1 FROM holds WHERE account = $1 AND owner <> $2 AND id LIKE 'lease\\_%' AND amount > 0) AS x",
    [account, owner],
  );
  if (!rows[0]?.x) return false;
  await query(pool, "SELECT pg_notify($1, $2)", [LEASES_CHANNEL, account]);
  return true;
}

/** Reservations per lane per second, and accounts where leasing pauses after a refusal. */
export class Traffic {
  private readonly rates = new Map<string, { second: number; count: number; prev: number }>();
  private readonly paused = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** Counts one reservation on the lane; true when the lane is busy (this second or the last). */
  busy(key: string): boolean {
    const second = Math.floor(this.now() / 1000);
    let r = this.rates.get(key);
    if (!r) this.rates.set(key, (r = { second, count: 0, prev: 0 }));
    if (r.second !== second) ((r.prev = r.second === second - 1 ? r.count : 0), (r.second = second), (r.count = 0));
    r.count++;
    return r.count >= BUSY_PER_S || r.prev >= BUSY_PER_S;
  }

  pause(account: string): void {
    this.paused.set(account, this.now() + PAUSE_MS);
  }

  isPaused(account: string): boolean {
    return (this.paused.get(account) ?? 0) > this.now();
  }

  /** Forgets rates older than a second ago and pauses that ended. */
  prune(): void {
    const t = this.now();
    const second = Math.floor(t / 1000);
    for (const [k, r] of this.rates) if (r.second < second - 2) this.rates.delete(k);
    for (const [a, until] of this.paused) if (until <= t) this.paused.delete(a);
  }
}
