/**
 * The audit log: one append-only record per change made through the CLI, the dashboard or a
 * config reload, each carrying the SHA-256 of the previous one (docs/audit.md).
 *
 * How a mutation gets its record, in the same transaction as the change:
 *
 *     await store.audited(note).createKey(record);
 *
 * `audited(note)` is the Store again, every method of which runs in ONE transaction together
 * with the append of `note` (SQLite: BEGIN IMMEDIATE, the methods' own transactions becoming
 * savepoints; PostgreSQL: the methods' statements join an ambient transaction, see
 * pg/db.ts). So a change without its record, or a record without its change, cannot commit.
 * A method that answers `false` (nothing was removed) commits no record. A new mutation needs
 * no store change to be audited: its operation builds the note (what changed, before and after,
 * never a secret) and calls it through `audited`. On SQLite an audited method must be
 * synchronous underneath (a promise from it aborts the transaction).
 *
 * Appends are serialized by a one-row chain head (`audit_head`, read FOR UPDATE on PostgreSQL;
 * SQLite has one writer), which also holds the last id and hash so a removed newest record is
 * detected too.
 */
import { createHash } from "node:crypto";

/** Who made a change and from where: a dashboard user's email and IP, `cli:<os user>` and null, `config`. */
export interface AuditActor {
  actor: string;
  ip: string | null;
}

/** JSON of the changed fields; never a secret (no key value or hash, BYOK key, password hash, token). */
export type AuditFields = Record<string, unknown> | null;

/** What an operation hands the store for one change. */
export interface AuditNote extends AuditActor {
  at: number;
  /** Stable dotted name: `key.create`, `credits.add`, `config.reload`, … (docs/audit.md). */
  action: string;
  /** The account the change belongs to (what the dashboard scopes by); null: the instance. */
  account: string | null;
  /** What changed: a key id, an account, `<account>/<provider>`, an email. */
  target: string;
  before: AuditFields;
  after: AuditFields;
}

export interface AuditRecord extends AuditNote {
  /** 1, 2, 3, … in chain order, without gaps. */
  id: number;
  prevHash: string;
  hash: string;
}

export interface AuditFilter {
  /** ms; records at or after it. */
  since?: number;
  account?: string;
  action?: string;
}

export interface AuditHead {
  id: number;
  hash: string;
}

/** A note, or one made from what the audited method answered (a balance after credits were added). */
export type AuditNoteOf = AuditNote | ((result: never) => AuditNote);

export const noteFor = (note: AuditNoteOf, result: unknown): AuditNote => (typeof note === "function" ? (note as (r: unknown) => AuditNote)(result) : note);

export interface AuditStore {
  /** This Store, every method of which commits together with `note` in one transaction (above). */
  audited(note: AuditNoteOf): this;
  /** Appends a record with no store change beside it (a config reload). */
  appendAudit(note: AuditNote): Promise<AuditRecord>;
  /** Records in chain order, filtered. */
  auditRecords(filter?: AuditFilter): Promise<AuditRecord[]>;
  /** The newest record's id and hash as the chain head says ({0, GENESIS} when empty). */
  auditHead(): Promise<AuditHead>;
}

/** The previous hash of the first record. */
export const GENESIS = "0".repeat(64);

/** JSON with object keys sorted at every depth: one text for one value. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** sha256 over the record's fields and the previous hash, canonically serialized. */
export function auditHash(r: Omit<AuditRecord, "hash">): string {
  const fields = [r.id, r.at, r.actor, r.ip, r.action, r.account, r.target, r.before, r.after, r.prevHash];
  return createHash("sha256").update(canonicalJson(fields)).digest("hex");
}

/** The record `note` becomes after `head`. */
export function nextRecord(head: AuditHead, note: AuditNote): AuditRecord {
  const r = { ...note, id: head.id + 1, prevHash: head.hash };
  return { ...r, hash: auditHash(r) };
}

/** The WHERE clause of a filter, with `?`-style or `$n`-style placeholders. */
export function auditWhere(filter: AuditFilter, placeholder: (n: number) => string): { where: string; values: unknown[] } {
  const parts = ["at >= " + placeholder(1)];
  const values: unknown[] = [filter.since ?? 0];
  if (filter.account !== undefined) parts.push(`account = ${placeholder(values.push(filter.account))}`);
  if (filter.action !== undefined) parts.push(`action = ${placeholder(values.push(filter.action))}`);
  return { where: parts.join(" AND "), values };
}
