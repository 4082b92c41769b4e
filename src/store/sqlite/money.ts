/**
 * Money on SQLite: balances and credit grants, holds of requests in flight (in memory: exact
 * within the one process that owns the file, and a crash leaves nothing to undo), and the
 * settlement that charges a request and writes its ledger row in one transaction. An
 * adjustment (`gateway credits adjust`) is a signed credit_grants row of kind 'adjustment' with
 * its reason, so the grants still sum to balance + charged (retention's invariant).
 */
import type Database from "better-sqlite3";
import { busyAsUnavailable, isBusy, writeTransaction } from "./tx.js";
import type { BudgetHold, BudgetScope } from "../../core/budget.js";
import { BalanceOverflowError, MAX_NANO } from "../../core/money.js";
import type { Holds } from "../holds.js";
import type { Attempt, LedgerEntry } from "../ledger.js";
import { AccountMissingError, NegativeBalanceError, type AccountSummary, type CreditEntry } from "../money.js";
import { Released, type sqliteBudget } from "./budget.js";
import type { sqliteJournal } from "./journal.js";
import type { sqliteLevels } from "./budgets.js";

/** Each try already waited out `busy_timeout` (5 s): a settlement waits about 30 s in all before its 503. */
const BUSY_RETRIES = 5;
const BUSY_PAUSE_MS = 50;

export function sqliteMoney(
  db: Database.Database,
  holds: Holds,
  budgets: ReturnType<typeof sqliteBudget>,
  levels: ReturnType<typeof sqliteLevels>,
  journal: ReturnType<typeof sqliteJournal>,
) {
  const s = {
    ensureAccount: db.prepare("INSERT OR IGNORE INTO accounts (id, balance, created_at) VALUES (?, 0, ?)"),
    // Balances read as BigInt: a number would silently round anything above 2^53 nano-USD.
    balance: db.prepare("SELECT balance FROM accounts WHERE id = ?").pluck().safeIntegers(),
    credit: db.prepare("UPDATE accounts SET balance = balance + ? WHERE id = ? RETURNING balance").pluck().safeIntegers(),
    debit: db.prepare("UPDATE accounts SET balance = balance - ? WHERE id = ?"),
    grant: db.prepare("INSERT INTO credit_grants (account, amount, created_at, actor) VALUES (?, ?, ?, ?)"),
    insertLedger: db.prepare(`INSERT INTO ledger (request_id, created_at, account, key_id, model, provider, prompt_tokens,
      completion_tokens, cost, list_cost, byok, usage_source, status, http_status, latency_ms, attempts, endpoint, uncollected, tags,
      reported_prompt_tokens, reported_completion_tokens, tool_calls, reported_tool_calls, tool_cost, bytes_in, bytes_out)
      VALUES (@requestId, @createdAt, @account, @keyId, @model, @provider, @promptTokens, @completionTokens, @cost,
      @listCost, @byok, @usageSource, @status, @httpStatus, @latencyMs, @attempts, @endpoint, @uncollected, @tags,
      @reportedPromptTokens, @reportedCompletionTokens, @toolCalls, @reportedToolCalls, @toolCost, @bytesIn, @bytesOut)`),
    insertAttempt: db.prepare(`INSERT INTO attempts (request_id, created_at, provider, model, outcome, http_status, latency_ms)
      VALUES (@requestId, @createdAt, @provider, @model, @outcome, @httpStatus, @latencyMs)`),
    // Spend = what was charged: ledger rows plus the daily rollups retention folded them into.
    list: db
      .prepare(
        `SELECT a.id, a.balance, a.created_at AS createdAt,
        (SELECT COUNT(*) FROM keys k WHERE k.account = a.id AND k.revoked_at IS NULL) AS keys,
        (SELECT COALESCE(SUM(cost), 0) FROM ledger l WHERE l.account = a.id)
          + (SELECT COALESCE(SUM(cost), 0) FROM usage_daily u WHERE u.account = a.id) AS spend
      FROM accounts a ORDER BY a.id`,
      )
      .safeIntegers(),
    adjustment: db.prepare("INSERT INTO credit_grants (account, amount, created_at, kind, reason, actor) VALUES (?, ?, ?, 'adjustment', ?, ?)"),
    credits: db
      .prepare(
        `SELECT amount, kind, reason, actor, created_at FROM credit_grants WHERE account = ?
      ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .safeIntegers(),
  };

  // Synchronous from the first read to the hold: no other request of this process can interleave.
  const reserve = (id: string, account: string, amount: number, budget?: BudgetHold, scope?: BudgetScope): boolean => {
    const held = holds.account(account);
    // Holds stay numbers (exact below 2^53 nano-USD, ~$9M in flight per account); the balance is BigInt.
    if (held + amount > Number.MAX_SAFE_INTEGER) return false;
    if (((s.balance.get(account) as bigint | undefined) ?? 0n) < BigInt(held + amount)) return false;
    if (budget && budgets.spent(budget.keyId, budget.since) + BigInt(holds.key(budget.keyId) + amount) > budget.limit) return false;
    const rows = scope ? levels.levels(account, scope.member) : [];
    if (!levels.fits(rows, amount, scope?.at ?? 0)) return false;
    holds.add(id, { account, amount, keyId: budget?.keyId, budgets: rows.map((l) => l.id) });
    return true;
  };
  const release = (id: string | null) => holds.release(id);

  const recordOne = (entry: LedgerEntry, attempts: Attempt[], reservationId: string | null = null, released = new Released()) => {
    // The whole cost where the balance and the key's budget allow it beyond other requests'
    // holds, never below zero; the ledger's sum of `cost` always equals the balance change.
    const own = holds.get(reservationId);
    // A row at cost 0 (a cache hit, a BYOK request, a failure) charges nothing: no balance read.
    const charge = entry.cost > 0 ? budgets.charge(entry, (s.balance.get(entry.account) as bigint | undefined) ?? 0n, own, released) : 0n;
    released.add(own);
    const cost = Number(charge);
    // Bound as BigInt: a JS number binds as REAL, and balance - REAL rounds above 2^53.
    if (charge > 0n) s.debit.run(charge, entry.account);
    entry.uncollected = entry.cost - cost;
    s.insertLedger.run({ ...entry, cost, byok: entry.byok ? 1 : 0, endpoint: entry.endpoint ?? "chat", ...ledgerExtras(entry) });
    journal.settled(entry.requestId);
    // One successful attempt is the ledger row itself; failovers are logged attempt by attempt.
    if (attempts.length > 1 || attempts[0]?.outcome !== "success") for (const a of attempts) s.insertAttempt.run(a);
  };

  // Group commit: settlements that arrive in the same turn of the event loop share one
  // transaction, and each promise resolves only after its row committed, so an answer never
  // leaves before its charge is durable. A failing batch is retried row by row; a batch that
  // found the file busy past its timeout (another writer) waits and tries again, since the
  // provider has answered and the charge must not be dropped (docs/limits.md).
  interface Pending {
    reservationId: string | null;
    entry: LedgerEntry;
    attempts: Attempt[];
    done: () => void;
    fail: (err: unknown) => void;
    busy?: number;
  }
  let batch: Pending[] = [];
  const recordAll = writeTransaction(db, (items: Pending[]) => {
    const released = new Released();
    for (const i of items) recordOne(i.entry, i.attempts, i.reservationId, released);
  });
  const recordEach = writeTransaction(db, recordOne);
  const flush = () => {
    const items = batch;
    batch = [];
    if (items.length === 0) return;
    try {
      recordAll(items);
      for (const i of items) (release(i.reservationId), i.done());
    } catch (err) {
      if (isBusy(err) && retryBusy(items, err)) return;
      for (const i of items) recordAlone(i);
    }
  };
  const recordAlone = (i: Pending) => {
    try {
      recordEach(i.entry, i.attempts, i.reservationId);
      i.done();
    } catch (err) {
      i.fail(busyAsUnavailable(err));
    } finally {
      release(i.reservationId);
    }
  };
  /** Puts a busy batch back for a later turn; past BUSY_RETRIES its settlements fail with 503. */
  const retryBusy = (items: Pending[], err: unknown): boolean => {
    const again = items.filter((i) => (i.busy = (i.busy ?? 0) + 1) <= BUSY_RETRIES);
    for (const i of items) if (i.busy! > BUSY_RETRIES) (release(i.reservationId), i.fail(busyAsUnavailable(err)));
    if (again.length === 0) return true;
    if (batch.length === 0) setTimeout(flush, BUSY_PAUSE_MS);
    batch.unshift(...again);
    return true;
  };

  const settle = (reservationId: string | null, entry: LedgerEntry, attempts: Attempt[]) =>
    new Promise<void>((done, fail) => {
      if (batch.push({ reservationId, entry, attempts, done, fail }) === 1) setImmediate(flush);
    });

  return {
    ensureAccount: (id: string, at: number) => void s.ensureAccount.run(id, at),
    balance: (account: string) => s.balance.get(account) as bigint | undefined,
    addCredits: writeTransaction(db, (account: string, amount: bigint | number, at: number, actor?: string): bigint => {
      s.ensureAccount.run(account, at);
      // SQLite would turn an overflowing sum into a REAL and the STRICT column refuse it with a
      // cryptic message: check here, inside the transaction, and say what the limit is.
      const nano = BigInt(amount); // a number would bind as REAL and round the sum
      if (((s.balance.get(account) as bigint | undefined) ?? 0n) + nano > MAX_NANO) throw new BalanceOverflowError(account);
      s.grant.run(account, nano, at, actor ?? null);
      return s.credit.get(nano, account) as bigint;
    }),
    accounts: (): AccountSummary[] =>
      (s.list.all() as Array<{ id: string; balance: bigint; createdAt: bigint; keys: bigint; spend: bigint }>).map((r) => ({
        id: r.id,
        balance: r.balance,
        createdAt: Number(r.createdAt),
        keys: Number(r.keys),
        spend: r.spend,
      })),
    /** Adds `delta` (signed nano-USD) with its reason; never below zero, never past MAX_NANO. */
    adjustCredits: writeTransaction(db, (account: string, delta: bigint, reason: string, at: number, actor?: string): bigint => {
      const balance = s.balance.get(account) as bigint | undefined;
      if (balance === undefined) throw new AccountMissingError(account);
      if (balance + delta < 0n) throw new NegativeBalanceError(account, balance, delta);
      if (balance + delta > MAX_NANO) throw new BalanceOverflowError(account);
      s.adjustment.run(account, delta, at, reason, actor ?? null);
      return s.credit.get(delta, account) as bigint;
    }),
    creditHistory: async (account: string, limit: number): Promise<CreditEntry[]> =>
      (s.credits.all(account, limit) as Array<{ amount: bigint; kind: string; reason: string | null; actor: string | null; created_at: bigint }>).map((r) => ({
        amount: r.amount,
        kind: r.kind === "adjustment" ? "adjustment" : "grant",
        reason: r.reason,
        actor: r.actor,
        createdAt: Number(r.created_at),
      })),
    reserve,
    /** In memory only: no row was written for it. */
    release: (id: string) => release(id),
    settle,
    keyBudgetUse: (keyId: string, since: number) => ({ spent: budgets.spent(keyId, since), held: holds.key(keyId) }),
    /** Commits the settlements still waiting for their turn (before the database closes). */
    flush,
  };
}

/** The entry's optional columns as SQLite binds them: JSON objects as text, absent as null. */
function ledgerExtras(e: LedgerEntry) {
  const json = (v: object | null | undefined) => (v ? JSON.stringify(v) : null);
  return {
    tags: json(e.tags),
    reportedPromptTokens: e.reportedPromptTokens ?? null,
    reportedCompletionTokens: e.reportedCompletionTokens ?? null,
    toolCalls: json(e.toolCalls),
    reportedToolCalls: json(e.reportedToolCalls),
    toolCost: e.toolCost ?? 0,
    bytesIn: e.bytesIn ?? null,
    bytesOut: e.bytesOut ?? null,
  };
}
