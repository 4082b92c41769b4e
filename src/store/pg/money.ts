/**
 * Money on PostgreSQL (docs/billing.md, docs/fleet.md): holds are committed rows leased to this
 * process, admission and settlement are one function call each (pg/migrations.ts), and a timer
 * renews this process's leases and releases everyone's expired ones. So requests spread over
 * any number of processes never overspend, and a killed process's holds are released within
 * two lease periods by whichever process sweeps first (docs/fleet.md).
 */
import type pg from "pg";
import { periodStarts, spentIn, type BudgetHold, type BudgetScope } from "../../core/budget-periods.js";
import { BalanceOverflowError, MAX_NANO } from "../../core/money.js";
import { AccountMissingError, NegativeBalanceError, type AccountSummary, type CreditEntry } from "../money.js";
import type { Attempt, LedgerEntry } from "../ledger.js";
import { big, query, transaction } from "./db.js";
import { sumSince } from "./key-budgets.js";
import { CHANGES_CHANNEL } from "./watch.js";
import { GroupCommit } from "./group-commit.js";
import { Leases } from "./lease.js";

/** A hold not renewed for this long expires (docs/fleet.md: 30 s). */
export const DEFAULT_LEASE_MS = 30_000;

export interface MoneyOptions {
  /** `fleet.leaseRequests` (docs/fleet.md, "Leases"): 0 = one hold per request. */
  leaseRequests: number;
  /** False while change notices may be missed (watch.ts). */
  hearing: () => boolean;
  now?: () => number;
}

export function pgMoney(pool: pg.Pool, owner: string, leaseMs: number, opts: MoneyOptions) {
  const now = opts.now ?? Date.now;
  /** Holds this process took and has not settled: their leases are renewed. */
  const open = new Set<string>();
  const commits = new GroupCommit(pool);
  /** Leased requests whose settlement failed: a retry splits the same part off the same lease. */
  const retrying = new Map<string, { lease: string; part: number }>();

  const exact = async (id: string, account: string, amount: number, budget?: BudgetHold, scope?: BudgetScope): Promise<boolean> => {
    const { rows } = await query<{ ok: boolean }>(pool, "SELECT gw_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS ok", [
      id,
      account,
      amount,
      budget?.keyId ?? null,
      budget?.limit ?? null,
      budget?.since ?? null,
      scope?.member ?? null,
      scope ? JSON.stringify(periodStarts(scope.at)) : null,
      owner,
      now() + leaseMs,
    ]);
    const ok = rows[0]?.ok === true;
    if (ok) open.add(id);
    return ok;
  };
  const leases = new Leases({ pool, owner, leaseMs, perSlice: opts.leaseRequests, now, exact, hearing: opts.hearing });

  const renew = async () => {
    const t = now();
    await query(pool, "INSERT INTO instances (id, seen_at) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at", [owner, t]);
    if (open.size || leases.active) {
      await query(pool, "UPDATE holds SET expires_at = $1 WHERE owner = $2", [t + leaseMs, owner]);
      leases.renewed(t);
    }
    await query(pool, "SELECT gw_release_expired($1)", [t]);
  };
  // Renewing at a third of the lease leaves two chances before a live process's holds expire.
  const timer = setInterval(() => void renew().catch(() => undefined), Math.max(250, Math.floor(leaseMs / 3)));
  timer.unref();

  const spent = async (keyId: string, since: number): Promise<bigint> => {
    const { rows } = await query<{ budget: string | null; spent: string; since: string }>(
      pool,
      "SELECT budget, spent, spent_since AS since FROM keys WHERE id = $1",
      [keyId],
    );
    const c = rows[0];
    if (!c) return 0n;
    if (c.budget !== null) return spentIn({ spent: big(c.spent), since: Number(c.since) }, since);
    return sumSince(pool, keyId, since);
  };

  return {
    start: renew,
    leases,
    async ensureAccount(id: string, at: number): Promise<void> {
      await query(pool, "INSERT INTO accounts (id, balance, created_at) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING", [id, at]);
    },
    async accounts(): Promise<AccountSummary[]> {
      const { rows } = await query<{ id: string; balance: string; created_at: string; keys: string; spend: string }>(
        pool,
        `SELECT a.id, a.balance, a.created_at,
          (SELECT COUNT(*) FROM keys k WHERE k.account = a.id AND k.revoked_at IS NULL) AS keys,
          (SELECT COALESCE(SUM(cost), 0) FROM ledger l WHERE l.account = a.id) + (SELECT COALESCE(SUM(cost), 0) FROM usage_daily u WHERE u.account = a.id) AS spend
        FROM accounts a ORDER BY a.id`,
      );
      return rows.map((r) => ({ id: r.id, balance: BigInt(r.balance), createdAt: Number(r.created_at), keys: Number(r.keys), spend: BigInt(r.spend) }));
    },
    async creditHistory(account: string, limit: number): Promise<CreditEntry[]> {
      const { rows } = await query<{ amount: string; kind: string; reason: string | null; actor: string | null; created_at: string }>(
        pool,
        "SELECT amount, kind, reason, actor, created_at FROM credit_grants WHERE account = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
        [account, limit],
      );
      return rows.map((r) => ({
        amount: BigInt(r.amount),
        kind: r.kind === "adjustment" ? "adjustment" : "grant",
        reason: r.reason,
        actor: r.actor,
        createdAt: Number(r.created_at),
      }));
    },

    /** Settlements still queued are written and leases given back. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await commits.idle();
      await leases.stop();
    },
    reserve: (id: string, account: string, amount: number, budget?: BudgetHold, scope?: BudgetScope) => leases.reserve(id, account, amount, budget, scope),
    /** Queued for the next batch (group-commit.ts); a leased request's part is split off its lease there. */
    async settle(reservationId: string | null, entry: LedgerEntry, attempts: Attempt[]): Promise<void> {
      // One successful attempt is the ledger row itself; failovers are logged attempt by attempt.
      const logged = attempts.length > 1 || attempts[0]?.outcome !== "success" ? attempts : [];
      const taken = reservationId ? leases.take(reservationId) : undefined;
      const leased = reservationId ? (retrying.get(reservationId) ?? taken) : undefined;
      try {
        const charged = await commits.settle({
          lease: leased?.lease ?? null,
          part: leased?.part ?? 0,
          hold: reservationId,
          e: { ...entry, endpoint: entry.endpoint ?? "chat" },
          starts: periodStarts(entry.createdAt),
          attempts: logged,
        });
        entry.uncollected = entry.cost - charged;
        if (reservationId) retrying.delete(reservationId);
      } catch (err) {
        if (reservationId && leased) retrying.set(reservationId, { lease: leased.lease, part: leased.part });
        throw err;
      } finally {
        taken?.done();
        if (reservationId) open.delete(reservationId);
      }
    },
    /** As gw_release_expired for one hold: the row goes, the `held` of its account, key and budgets drop by its amount. */
    async release(reservationId: string): Promise<void> {
      if (leases.release(reservationId)) return; // its part stays in the lease, unused
      try {
        await query(
          pool,
          `WITH gone AS (DELETE FROM holds WHERE id = $1 RETURNING account, key_id, amount, account_budget, member_budget)
           SELECT gw_give_back(amount, account, key_id, account_budget, member_budget) FROM gone`,
          [reservationId],
        );
      } finally {
        open.delete(reservationId);
      }
    },
    async keyBudgetUse(keyId: string, since: number) {
      // Leased room is not held by any request until one is admitted against it (docs/fleet.md, "Leases").
      const { rows } = await query<{ held: string }>(
        pool,
        "SELECT held - COALESCE((SELECT SUM(amount) FROM holds WHERE key_id = $1 AND id LIKE 'lease\\_%'), 0) AS held FROM keys WHERE id = $1",
        [keyId],
      );
      return { spent: await spent(keyId, since), held: Number(rows[0]?.held ?? 0) + leases.usedBy(keyId) };
    },
    async balance(account: string): Promise<bigint | undefined> {
      const { rows } = await query<{ balance: string }>(pool, "SELECT balance FROM accounts WHERE id = $1", [account]);
      return rows[0] ? BigInt(rows[0].balance) : undefined;
    },
    addCredits: (account: string, amount: bigint | number, at: number, actor?: string) =>
      transaction(pool, async (c) => {
        await c.query("INSERT INTO accounts (id, balance, created_at) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING", [account, at]);
        const nano = BigInt(amount);
        const { rows } = await c.query<{ balance: string }>("SELECT balance FROM accounts WHERE id = $1 FOR UPDATE", [account]);
        if (BigInt(rows[0]!.balance) + nano > MAX_NANO) throw new BalanceOverflowError(account);
        await c.query("INSERT INTO credit_grants (account, amount, created_at, actor) VALUES ($1, $2, $3, $4)", [account, nano, at, actor ?? null]);
        const out = await c.query<{ balance: string }>("UPDATE accounts SET balance = balance + $1 WHERE id = $2 RETURNING balance", [nano, account]);
        await c.query(`NOTIFY ${CHANGES_CHANNEL}`);
        return BigInt(out.rows[0]!.balance);
      }),
    adjustCredits: (account: string, delta: bigint, reason: string, at: number, actor?: string) =>
      transaction(pool, async (c) => {
        const { rows } = await c.query<{ balance: string }>("SELECT balance FROM accounts WHERE id = $1 FOR UPDATE", [account]);
        if (!rows[0]) throw new AccountMissingError(account);
        const balance = BigInt(rows[0].balance);
        if (balance + delta < 0n) throw new NegativeBalanceError(account, balance, delta);
        if (balance + delta > MAX_NANO) throw new BalanceOverflowError(account);
        await c.query("INSERT INTO credit_grants (account, amount, created_at, kind, reason, actor) VALUES ($1, $2, $3, 'adjustment', $4, $5)", [
          account,
          delta,
          at,
          reason,
          actor ?? null,
        ]);
        const out = await c.query<{ balance: string }>("UPDATE accounts SET balance = balance + $1 WHERE id = $2 RETURNING balance", [delta, account]);
        await c.query(`NOTIFY ${CHANGES_CHANNEL}`);
        return BigInt(out.rows[0]!.balance);
      }),
  };
}
