/**
 * The SQLite store (better-sqlite3): one file, WAL, synchronous=NORMAL (a killed process
 * loses no committed row), prepared statements, one transaction per money movement.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { BalanceOverflowError, MAX_NANO } from "../../core/money.js";
import { createPrivateFile, tightenJournals } from "./files.js";
import { migrations } from "./migrations.js";
import { sqliteAccounts } from "./accounts.js";
import { sqliteJournal } from "./journal.js";
import { sqliteRetention } from "./retention.js";
import { sqliteResponses } from "./responses.js";
import { sqliteDashboard } from "./dashboard.js";
import { sqliteActivity } from "./activity.js";
import type { BudgetHold } from "../../core/budget.js";
import { Holds } from "../holds.js";
import { KEY_COLUMNS, Released, sqliteBudget, toKey } from "./budget.js";
import type { Attempt, ByokRecord, CatalogModel, LedgerEntry, Store } from "../index.js";
import { promised } from "./promised.js";
import { fromCatalogRow, toCatalogColumns, type CatalogRow } from "../catalog-row.js";
import { watchDataVersion } from "./watch.js";
import { requireFilePath } from "../../core/database-url.js";

function migrate(db: Database.Database): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  for (let v = current; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

export function openSqliteStore(file: string): Store {
  requireFilePath(file); // a URL taken for a path would create a `scheme:` directory
  const onDisk = file !== ":memory:";
  if (onDisk) mkdirSync(dirname(file), { recursive: true });
  if (onDisk) createPrivateFile(file);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  migrate(db);
  if (onDisk) tightenJournals(file); // WAL mode and the migrations have created them by now
  const retention = sqliteRetention(db);
  const journal = sqliteJournal(db);
  const accounts = sqliteAccounts(db);
  const responses = sqliteResponses(db);
  const dashboard = sqliteDashboard(db);
  const activity = sqliteActivity(db);

  const s = {
    insertKey: db.prepare(`INSERT INTO keys (id, name, account, hash, last4, created_at, expires_at, rpm, budget, budget_period)
      VALUES (@id, @name, @account, @hash, @last4, @createdAt, @expiresAt, @rpm, @budget, @budgetPeriod)`),
    keyByHash: db.prepare(`SELECT ${KEY_COLUMNS} FROM keys WHERE hash = ?`),
    keyByIdOrName: db.prepare(`SELECT ${KEY_COLUMNS} FROM keys WHERE id = ? OR name = ?`),
    revoke: db.prepare("UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    touch: db.prepare("UPDATE keys SET last_used_at = ? WHERE id = ?"),
    ensureAccount: db.prepare("INSERT OR IGNORE INTO accounts (id, balance, created_at) VALUES (?, 0, ?)"),
    // Balances read as BigInt: a number would silently round anything above 2^53 nano-USD.
    balance: db.prepare("SELECT balance FROM accounts WHERE id = ?").pluck().safeIntegers(),
    credit: db.prepare("UPDATE accounts SET balance = balance + ? WHERE id = ? RETURNING balance").pluck().safeIntegers(),
    debit: db.prepare("UPDATE accounts SET balance = balance - ? WHERE id = ?"),
    grant: db.prepare("INSERT INTO credit_grants (account, amount, created_at) VALUES (?, ?, ?)"),
    insertLedger: db.prepare(`INSERT INTO ledger (request_id, created_at, account, key_id, model, provider, prompt_tokens,
      completion_tokens, cost, list_cost, byok, usage_source, status, http_status, latency_ms, attempts, endpoint, uncollected)
      VALUES (@requestId, @createdAt, @account, @keyId, @model, @provider, @promptTokens, @completionTokens, @cost,
      @listCost, @byok, @usageSource, @status, @httpStatus, @latencyMs, @attempts, @endpoint, @uncollected)`),
    insertAttempt: db.prepare(`INSERT INTO attempts (request_id, created_at, provider, model, outcome, http_status, latency_ms)
      VALUES (@requestId, @createdAt, @provider, @model, @outcome, @httpStatus, @latencyMs)`),
    upsertByok: db.prepare(`INSERT INTO byok_keys (account, provider, secret, last4, updated_at)
      VALUES (@account, @provider, @secret, @last4, @updatedAt)
      ON CONFLICT (account, provider) DO UPDATE SET secret = excluded.secret, last4 = excluded.last4, updated_at = excluded.updated_at`),
    listByok: db.prepare("SELECT account, provider, secret, last4, updated_at AS updatedAt FROM byok_keys WHERE account = ? ORDER BY provider"),
    allByok: db.prepare("SELECT account, provider, secret, last4, updated_at AS updatedAt FROM byok_keys ORDER BY account, provider"),
    removeByok: db.prepare("DELETE FROM byok_keys WHERE account = ? AND provider = ?"),
    catalog: db.prepare("SELECT * FROM catalog ORDER BY id"),
    insertCatalog: db.prepare(`INSERT INTO catalog (id, owned_by, prompt_price, completion_price, context_length, max_output, endpoints, source, created)
      VALUES (@id, @owned_by, @prompt_price, @completion_price, @context_length, @max_output, @endpoints, @source, @created)`),
  };

  // In-flight reservations live in memory: exact within the one gateway process that owns
  // this database (the rate limiter assumes the same), and a crash leaves nothing to undo.
  // Each request then costs one transaction: the settlement. A key with a budget holds the
  // same amount against it (src/core/budget.ts).
  const holds = new Holds();
  const budgets = sqliteBudget(db, holds);

  const reserve = (id: string, account: string, amount: number, budget?: BudgetHold): boolean => {
    const held = holds.account(account);
    // Holds stay numbers (exact below 2^53 nano-USD, ~$9M in flight per account); the balance is BigInt.
    if (held + amount > Number.MAX_SAFE_INTEGER) return false;
    if (((s.balance.get(account) as bigint | undefined) ?? 0n) < BigInt(held + amount)) return false;
    if (budget && budgets.spent(budget.keyId, budget.since) + BigInt(holds.key(budget.keyId) + amount) > budget.limit) return false;
    holds.add(id, { account, amount, keyId: budget?.keyId });
    return true;
  };
  const release = (id: string | null) => holds.release(id);

  const recordOne = (entry: LedgerEntry, attempts: Attempt[], reservationId: string | null = null, released = new Released()) => {
    // The whole cost where the balance and the key's budget allow it beyond other requests'
    // holds, never below zero; the ledger's sum of `cost` always equals the balance change.
    const balance = (s.balance.get(entry.account) as bigint | undefined) ?? 0n;
    const own = holds.get(reservationId);
    const charge = entry.cost > 0 ? budgets.charge(entry, balance, own, released) : 0n;
    released.add(own);
    const cost = Number(charge);
    // Bound as BigInt: a JS number binds as REAL, and balance - REAL rounds above 2^53.
    if (charge > 0n) s.debit.run(charge, entry.account);
    entry.uncollected = entry.cost - cost;
    s.insertLedger.run({ ...entry, cost, byok: entry.byok ? 1 : 0, endpoint: entry.endpoint ?? "chat" });
    journal.settled(entry.requestId);
    // One successful attempt is the ledger row itself; failovers are logged attempt by attempt.
    if (attempts.length > 1 || attempts[0]?.outcome !== "success") for (const a of attempts) s.insertAttempt.run(a);
  };

  // Group commit: settlements that arrive in the same turn of the event loop share one
  // transaction, and each promise resolves only after its row committed, so an answer never
  // leaves before its charge is durable. A failing batch is retried row by row.
  interface Pending {
    reservationId: string | null;
    entry: LedgerEntry;
    attempts: Attempt[];
    done: () => void;
    fail: (err: unknown) => void;
  }
  let batch: Pending[] = [];
  const recordAll = db.transaction((items: Pending[]) => {
    const released = new Released();
    for (const i of items) recordOne(i.entry, i.attempts, i.reservationId, released);
  });
  const recordEach = db.transaction(recordOne);
  const flush = () => {
    const items = batch;
    batch = [];
    if (items.length === 0) return;
    try {
      recordAll(items);
      for (const i of items) (release(i.reservationId), i.done());
    } catch {
      for (const i of items) {
        try {
          recordEach(i.entry, i.attempts, i.reservationId);
          i.done();
        } catch (err) {
          i.fail(err);
        } finally {
          release(i.reservationId);
        }
      }
    }
  };

  const settle = (reservationId: string | null, entry: LedgerEntry, attempts: Attempt[]) =>
    new Promise<void>((done, fail) => {
      if (batch.push({ reservationId, entry, attempts, done, fail }) === 1) setImmediate(flush);
    });

  const watch = watchDataVersion(() => db.pragma("data_version", { simple: true }) as number);
  return promised({
    kind: "sqlite",
    createKey: (key) => void s.insertKey.run({ budget: null, budgetPeriod: "total", ...key }),
    findKeyByHash: (hash) => toKey(s.keyByHash.get(hash)),
    findKey: (idOrName) => toKey(s.keyByIdOrName.get(idOrName, idOrName)),
    listKeys: (account) =>
      (account
        ? db.prepare(`SELECT ${KEY_COLUMNS} FROM keys WHERE account = ? ORDER BY created_at`).all(account)
        : db.prepare(`SELECT ${KEY_COLUMNS} FROM keys ORDER BY created_at`).all()
      ).map((r) => toKey(r)!),
    revokeKey: (id, at) => void s.revoke.run(at, id),
    updateKey: (id, changes, at) => budgets.update(id, changes, at),
    keyBudgetUse: (keyId, since) => ({ spent: budgets.spent(keyId, since), held: holds.key(keyId) }),
    touchKeys: db.transaction((lastUsed: Map<string, number>) => {
      for (const [id, at] of lastUsed) s.touch.run(at, id);
    }),
    watch: watch.add,
    ensureAccount: (id, at) => void s.ensureAccount.run(id, at),
    balance: (account) => s.balance.get(account) as bigint | undefined,
    addCredits: db.transaction((account: string, amount: bigint | number, at: number): bigint => {
      s.ensureAccount.run(account, at);
      // SQLite would turn an overflowing sum into a REAL and the STRICT column refuse it with a
      // cryptic message: check here, inside the transaction, and say what the limit is.
      const nano = BigInt(amount); // a number would bind as REAL and round the sum
      if (((s.balance.get(account) as bigint | undefined) ?? 0n) + nano > MAX_NANO) throw new BalanceOverflowError(account);
      s.grant.run(account, nano, at);
      return s.credit.get(nano, account) as bigint;
    }),
    accounts: accounts.accounts,
    adjustCredits: accounts.adjustCredits,
    reserve,
    settle,
    usage: retention.usage,
    prune: retention.prune,
    oldestLedgerAt: retention.oldestLedgerAt,
    setByok: (r) => void s.upsertByok.run(r),
    listByok: (account) => (account === undefined ? s.allByok.all() : s.listByok.all(account)) as ByokRecord[],
    removeByok: (account, provider) => s.removeByok.run(account, provider).changes > 0,
    replaceCatalog: db.transaction((models: CatalogModel[]) => {
      db.exec("DELETE FROM catalog");
      for (const m of models) s.insertCatalog.run(toCatalogColumns(m));
    }),
    catalog: () => (s.catalog.all() as CatalogRow[]).map(fromCatalogRow),
    ...responses,
    ...dashboard,
    ...activity,
    journalInflight: journal.journalInflight,
    leftInflight: journal.leftInflight,
    close: () => {
      watch.stop();
      flush();
      db.close();
    },
  });
}
