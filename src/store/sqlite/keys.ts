/** Keys on SQLite: one row each, read by hash on every request (through the key cache). */
import type Database from "better-sqlite3";
import { writeTransaction } from "./tx.js";
import { pickKey, type KeyRecord } from "../keys.js";
import type { sqliteBudget } from "./key-budgets.js";

/** Columns of a key as KeyRecord; the budget as text, so a BigInt survives the row mapping. */
const KEY_COLUMNS = `id, name, account, hash, last4, created_at AS createdAt, expires_at AS expiresAt,
  revoked_at AS revokedAt, last_used_at AS lastUsedAt, rpm, CAST(budget AS TEXT) AS budget, budget_period AS budgetPeriod, cache, created_by AS createdBy,
  limits_by_manager AS limitsByManager, mcp, guardrails`;

function toKey(row: unknown): KeyRecord | undefined {
  if (!row) return undefined;
  const r = row as Omit<KeyRecord, "budget" | "limitsByManager" | "mcp"> & { budget: string | null; limitsByManager: number; mcp: string | null };
  return {
    ...r,
    budget: r.budget === null ? null : BigInt(r.budget),
    limitsByManager: r.limitsByManager === 1,
    mcp: r.mcp === null ? null : (JSON.parse(r.mcp) as string[]),
  };
}

export function sqliteKeys(db: Database.Database, budgets: ReturnType<typeof sqliteBudget>) {
  const s = {
    insertKey:
      db.prepare(`INSERT INTO keys (id, name, account, hash, last4, created_at, expires_at, rpm, budget, budget_period, cache, created_by, limits_by_manager, mcp, guardrails)
      VALUES (@id, @name, @account, @hash, @last4, @createdAt, @expiresAt, @rpm, @budget, @budgetPeriod, @cache, @createdBy, @limitsByManager, @mcp, @guardrails)`),
    keyByHash: db.prepare(`SELECT ${KEY_COLUMNS} FROM keys WHERE hash = ?`),
    // At most three rows: the id's, and a name's in two accounts is enough to call the name ambiguous.
    keyByIdOrName: db.prepare(
      `SELECT ${KEY_COLUMNS} FROM keys WHERE (id = @v OR name = @v) AND (@account IS NULL OR account = @account) ORDER BY id = @v DESC LIMIT 3`,
    ),
    revoke: db.prepare("UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    touch: db.prepare("UPDATE keys SET last_used_at = ? WHERE id = ?"),
  };
  return {
    createKey: (key: KeyRecord) =>
      void s.insertKey.run({
        budget: null,
        budgetPeriod: "total",
        cache: "off",
        ...key,
        createdBy: key.createdBy ?? null,
        limitsByManager: key.limitsByManager ? 1 : 0,
        mcp: key.mcp?.length ? JSON.stringify(key.mcp) : null,
        guardrails: key.guardrails ?? null,
      }),
    findKeyByHash: (hash: string) => toKey(s.keyByHash.get(hash)),
    findKey: (idOrName: string, account?: string) =>
      pickKey(
        idOrName,
        s.keyByIdOrName.all({ v: idOrName, account: account ?? null }).map((r) => toKey(r)!),
      ),
    listKeys: (account?: string) =>
      (account
        ? db.prepare(`SELECT ${KEY_COLUMNS} FROM keys WHERE account = ? ORDER BY created_at`).all(account)
        : db.prepare(`SELECT ${KEY_COLUMNS} FROM keys ORDER BY created_at`).all()
      ).map((r) => toKey(r)!),
    revokeKey: (id: string, at: number) => void s.revoke.run(at, id),
    updateKey: budgets.update,
    touchKeys: writeTransaction(db, (lastUsed: Map<string, number>) => {
      for (const [id, at] of lastUsed) s.touch.run(at, id);
    }),
  };
}
