/**
 * The audit log on SQLite (src/store/audit.ts, docs/audit.md): one writer at a time (BEGIN
 * IMMEDIATE), so reading the head and appending after it inside the change's transaction keeps
 * the chain in order. `audited` wraps the synchronous store methods, before they become promises.
 */
import type Database from "better-sqlite3";
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
import { writeTransaction } from "./tx.js";

interface AuditRow {
  id: number;
  at: number;
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
  id: r.id,
  at: r.at,
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

export function sqliteAudit(db: Database.Database) {
  const s = {
    head: db.prepare("SELECT last_id AS id, last_hash AS hash FROM audit_head WHERE one = 1"),
    insert: db.prepare(`INSERT INTO audit_log (id, at, actor, ip, action, account, target, before, after, prev_hash, hash)
      VALUES (@id, @at, @actor, @ip, @action, @account, @target, @before, @after, @prevHash, @hash)`),
    moveHead: db.prepare("UPDATE audit_head SET last_id = ?, last_hash = ? WHERE one = 1"),
  };
  /** Inside a write transaction only. */
  const append = (note: AuditNote): AuditRecord => {
    const r = nextRecord(s.head.get() as AuditHead, note);
    s.insert.run({ ...r, before: text(r.before), after: text(r.after) });
    s.moveHead.run(r.id, r.hash);
    return r;
  };
  const appendAudit = writeTransaction(db, append);

  /** The synchronous store with every method run in one transaction with `note`'s append. */
  function auditedView<T extends object>(sync: T, note: AuditNoteOf): T {
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(sync)) {
      if (typeof member !== "function") {
        out[name] = member;
        continue;
      }
      out[name] = writeTransaction(db, (...a: unknown[]) => {
        const result: unknown = (member as (...x: unknown[]) => unknown)(...a);
        if (result instanceof Promise) {
          result.catch(() => undefined);
          throw new Error(`audited ${name}: a SQLite store method must be synchronous (src/store/audit.ts)`);
        }
        if (result !== false) append(noteFor(note, result));
        return result;
      });
    }
    return out as T;
  }

  return {
    auditedView,
    appendAudit: (note: AuditNote) => appendAudit(note),
    auditRecords: (filter: AuditFilter = {}) => {
      const { where, values } = auditWhere(filter, () => "?");
      return (db.prepare(`SELECT * FROM audit_log WHERE ${where} ORDER BY id`).all(...values) as AuditRow[]).map(fromRow);
    },
    auditHead: () => s.head.get() as AuditHead,
  };
}
