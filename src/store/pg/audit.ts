/**
 * The audit log on PostgreSQL (src/store/audit.ts, docs/audit.md). Appends from any number of
 * processes are serialized by the one-row head, read FOR UPDATE in the change's transaction, so
 * the chain's order is exactly the order of commits.
 */
import type pg from "pg";
import {
  auditWhere,
  canonicalJson,
  nextRecord,
  noteFor,
  type AuditFilter,
  type AuditHead,
  type AuditNote,
  type AuditNoteOf,
  type AuditRecord,
} from "../audit.js";
import { query, sharedTransaction } from "./db.js";

interface AuditRow {
  id: string;
  at: string;
  actor: string;
  ip: string | null;
  action: string;
  account: string | null;
  target: string;
  before: string | null;
  after: string | null;
  prev_hash: string;
  hash: string;
}

const json = (v: string | null) => (v === null ? null : (JSON.parse(v) as Record<string, unknown>));
const fromRow = (r: AuditRow): AuditRecord => ({
  id: Number(r.id),
  at: Number(r.at),
  actor: r.actor,
  ip: r.ip,
  action: r.action,
  account: r.account,
  target: r.target,
  before: json(r.before),
  after: json(r.after),
  prevHash: r.prev_hash,
  hash: r.hash,
});
const text = (v: unknown) => (v === null || v === undefined ? null : canonicalJson(v));

async function head(c: pg.PoolClient | pg.Pool, lock: boolean): Promise<AuditHead> {
  const { rows } = await query<{ id: string; hash: string }>(
    c,
    `SELECT last_id AS id, last_hash AS hash FROM audit_head WHERE one = 1${lock ? " FOR UPDATE" : ""}`,
  );
  return { id: Number(rows[0]!.id), hash: rows[0]!.hash };
}

async function append(c: pg.PoolClient, note: AuditNote): Promise<AuditRecord> {
  const r = nextRecord(await head(c, true), note);
  await c.query(
    `INSERT INTO audit_log (id, at, actor, ip, action, account, target, before, after, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [r.id, r.at, r.actor, r.ip, r.action, r.account, r.target, text(r.before), text(r.after), r.prevHash, r.hash],
  );
  await c.query("UPDATE audit_head SET last_id = $1, last_hash = $2 WHERE one = 1", [r.id, r.hash]);
  return r;
}

export function pgAudit(pool: pg.Pool) {
  /** `store` with every method run in one transaction with `note`'s append (src/store/audit.ts). */
  function auditedView<T extends object>(store: T, note: AuditNoteOf): T {
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(store)) {
      out[name] =
        typeof member !== "function"
          ? member
          : (...a: unknown[]) =>
              sharedTransaction(pool, async (c) => {
                const result: unknown = await (member as (...x: unknown[]) => unknown)(...a);
                if (result !== false) await append(c, noteFor(note, result));
                return result;
              });
    }
    return out as T;
  }
  return {
    auditedView,
    appendAudit: (note: AuditNote) => sharedTransaction(pool, (c) => append(c, note)),
    auditRecords: async (filter: AuditFilter = {}) => {
      const { where, values } = auditWhere(filter, (n) => `$${n}`);
      return (await query<AuditRow>(pool, `SELECT * FROM audit_log WHERE ${where} ORDER BY id`, values)).rows.map(fromRow);
    },
    auditHead: () => head(pool, false),
  };
}
