/**
 * The SQLite store (better-sqlite3): one file, WAL, synchronous=NORMAL (a killed process
 * loses no committed row), prepared statements, one transaction per money movement.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { migrations } from "./migrations.js";
import type { Attempt, ByokRecord, CatalogModel, KeyRecord, LedgerEntry, Store, UsageRow } from "./index.js";

const KEY_COLUMNS = `id, name, account, hash, last4, created_at AS createdAt, expires_at AS expiresAt,
  revoked_at AS revokedAt, last_used_at AS lastUsedAt, rpm`;

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
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  migrate(db);

  const s = {
    insertKey: db.prepare(`INSERT INTO keys (id, name, account, hash, last4, created_at, expires_at, rpm)
      VALUES (@id, @name, @account, @hash, @last4, @createdAt, @expiresAt, @rpm)`),
    keyByHash: db.prepare(`SELECT ${KEY_COLUMNS} FROM keys WHERE hash = ?`),
    keyByIdOrName: db.prepare(`SELECT ${KEY_COLUMNS} FROM keys WHERE id = ? OR name = ?`),
    revoke: db.prepare("UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    touch: db.prepare("UPDATE keys SET last_used_at = ? WHERE id = ?"),
    ensureAccount: db.prepare("INSERT OR IGNORE INTO accounts (id, balance, created_at) VALUES (?, 0, ?)"),
    balance: db.prepare("SELECT balance FROM accounts WHERE id = ?").pluck(),
    credit: db.prepare("UPDATE accounts SET balance = balance + ? WHERE id = ? RETURNING balance").pluck(),
    grant: db.prepare("INSERT INTO credit_grants (account, amount, created_at) VALUES (?, ?, ?)"),
    debit: db.prepare("UPDATE accounts SET balance = balance - @amount WHERE id = @account AND balance >= @amount"),
    insertReservation: db.prepare("INSERT INTO reservations (id, account, amount, created_at) VALUES (@id, @account, @amount, @at)"),
    takeReservation: db.prepare("DELETE FROM reservations WHERE id = ? RETURNING account, amount"),
    allReservations: db.prepare("DELETE FROM reservations RETURNING account, amount"),
    insertLedger: db.prepare(`INSERT INTO ledger (request_id, created_at, account, key_id, model, provider, prompt_tokens,
      completion_tokens, cost, list_cost, byok, usage_source, status, http_status, latency_ms, attempts)
      VALUES (@requestId, @createdAt, @account, @keyId, @model, @provider, @promptTokens, @completionTokens, @cost,
      @listCost, @byok, @usageSource, @status, @httpStatus, @latencyMs, @attempts)`),
    insertAttempt: db.prepare(`INSERT INTO attempts (request_id, created_at, provider, model, outcome, http_status, latency_ms)
      VALUES (@requestId, @createdAt, @provider, @model, @outcome, @httpStatus, @latencyMs)`),
    upsertByok: db.prepare(`INSERT INTO byok_keys (account, provider, secret, last4, updated_at)
      VALUES (@account, @provider, @secret, @last4, @updatedAt)
      ON CONFLICT (account, provider) DO UPDATE SET secret = excluded.secret, last4 = excluded.last4, updated_at = excluded.updated_at`),
    getByok: db.prepare("SELECT account, provider, secret, last4, updated_at AS updatedAt FROM byok_keys WHERE account = ? AND provider = ?"),
    listByok: db.prepare("SELECT account, provider, secret, last4, updated_at AS updatedAt FROM byok_keys WHERE account = ? ORDER BY provider"),
    removeByok: db.prepare("DELETE FROM byok_keys WHERE account = ? AND provider = ?"),
    byokProviders: db.prepare("SELECT provider FROM byok_keys WHERE account = ?").pluck(),
    catalog: db.prepare("SELECT * FROM catalog ORDER BY id"),
    insertCatalog: db.prepare(`INSERT INTO catalog (id, owned_by, prompt_price, completion_price, context_length, max_output, endpoints, source, created)
      VALUES (@id, @ownedBy, @promptPrice, @completionPrice, @contextLength, @maxOutput, @endpoints, @source, @created)`),
  };

  const refund = (account: string, amount: number) => {
    if (amount > 0) s.credit.get(amount, account);
  };

  const settle = db.transaction((reservationId: string | null, entry: LedgerEntry, attempts: Attempt[]) => {
    if (reservationId) {
      const held = s.takeReservation.get(reservationId) as { account: string; amount: number } | undefined;
      // The charge never exceeds what was reserved, so the balance cannot go below zero.
      if (held) refund(held.account, held.amount - entry.cost);
    }
    s.insertLedger.run({ ...entry, byok: entry.byok ? 1 : 0 });
    for (const a of attempts) s.insertAttempt.run(a);
  });

  const reserve = db.transaction((id: string, account: string, amount: number, at: number): boolean => {
    if (s.debit.run({ account, amount }).changes === 0) return false;
    s.insertReservation.run({ id, account, amount, at });
    return true;
  });

  return {
    createKey: (key) => void s.insertKey.run(key),
    findKeyByHash: (hash) => s.keyByHash.get(hash) as KeyRecord | undefined,
    findKey: (idOrName) => s.keyByIdOrName.get(idOrName, idOrName) as KeyRecord | undefined,
    listKeys: (account) =>
      (account
        ? db.prepare(`SELECT ${KEY_COLUMNS} FROM keys WHERE account = ? ORDER BY created_at`).all(account)
        : db.prepare(`SELECT ${KEY_COLUMNS} FROM keys ORDER BY created_at`).all()) as KeyRecord[],
    revokeKey: (id, at) => void s.revoke.run(at, id),
    touchKeys: db.transaction((lastUsed: Map<string, number>) => {
      for (const [id, at] of lastUsed) s.touch.run(at, id);
    }),
    dataVersion: () => db.pragma("data_version", { simple: true }) as number,
    ensureAccount: (id, at) => void s.ensureAccount.run(id, at),
    balance: (account) => s.balance.get(account) as number | undefined,
    addCredits: db.transaction((account: string, amount: number, at: number): number => {
      s.ensureAccount.run(account, at);
      s.grant.run(account, amount, at);
      return s.credit.get(amount, account) as number;
    }),
    reserve,
    settle,
    releaseStaleReservations: db.transaction(() => {
      const rows = s.allReservations.all() as Array<{ account: string; amount: number }>;
      for (const r of rows) refund(r.account, r.amount);
      return rows.length;
    }),
    usage: ({ account, since }) =>
      db
        .prepare(
          `SELECT l.model, l.key_id AS keyId, k.name AS keyName, COUNT(*) AS requests,
             SUM(l.prompt_tokens) AS promptTokens, SUM(l.completion_tokens) AS completionTokens, SUM(l.cost) AS cost
           FROM ledger l LEFT JOIN keys k ON k.id = l.key_id
           WHERE (@account IS NULL OR l.account = @account) AND (@since IS NULL OR l.created_at >= @since)
           GROUP BY l.model, l.key_id ORDER BY l.model, l.key_id`,
        )
        .all({ account: account ?? null, since: since ?? null }) as UsageRow[],
    setByok: (r) => void s.upsertByok.run(r),
    getByok: (account, provider) => s.getByok.get(account, provider) as ByokRecord | undefined,
    listByok: (account) => s.listByok.all(account) as ByokRecord[],
    removeByok: (account, provider) => s.removeByok.run(account, provider).changes > 0,
    byokProviders: (account) => s.byokProviders.all(account) as string[],
    replaceCatalog: db.transaction((models: CatalogModel[]) => {
      db.exec("DELETE FROM catalog");
      for (const m of models) s.insertCatalog.run({ ...m, endpoints: JSON.stringify({ endpoints: m.endpoints, order: m.order }) });
    }),
    catalog: () => (s.catalog.all() as CatalogRow[]).map(fromCatalogRow),
    close: () => db.close(),
  };
}

interface CatalogRow {
  id: string; owned_by: string; prompt_price: number | null; completion_price: number | null;
  context_length: number | null; max_output: number | null; endpoints: string; source: CatalogModel["source"]; created: number;
}

function fromCatalogRow(r: CatalogRow): CatalogModel {
  const routes = JSON.parse(r.endpoints) as Pick<CatalogModel, "endpoints" | "order">;
  return {
    id: r.id, ownedBy: r.owned_by, promptPrice: r.prompt_price, completionPrice: r.completion_price,
    contextLength: r.context_length, maxOutput: r.max_output, endpoints: routes.endpoints, order: routes.order,
    source: r.source, created: r.created,
  };
}
