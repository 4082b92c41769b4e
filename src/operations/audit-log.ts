/**
 * Reading and checking the audit log (`gateway audit`, `gateway audit verify`, the dashboard's
 * Audit page; docs/audit.md): records as `{id, at, actor, ip, action, target, before, after}`,
 * and a walk of the hash chain that names the first record where it breaks.
 */
import { auditHash, GENESIS, type AuditFilter } from "../store/audit.js";
import type { AuditRecord, Store } from "../store/index.js";

export const auditView = (r: AuditRecord) => ({
  id: r.id,
  at: new Date(r.at).toISOString(),
  actor: r.actor,
  ip: r.ip,
  action: r.action,
  target: r.target,
  before: r.before,
  after: r.after,
});

export async function listAudit(store: Store, filter: AuditFilter = {}) {
  return (await store.auditRecords(filter)).map(auditView);
}

export type Verdict = { ok: true; verified: number } | { ok: false; verified: number; id: number; problem: string };

/**
 * Each record must have the next id, carry the previous record's hash, and hash to its own
 * stored hash; the chain head must name the last one. The first record that fails is named.
 */
export async function verifyAudit(store: Store): Promise<Verdict> {
  const records = await store.auditRecords();
  const head = await store.auditHead();
  let prev = GENESIS;
  let verified = 0;
  for (const r of records) {
    const expected = verified + 1;
    if (r.id !== expected) return broken(verified, expected, `record ${expected} is missing (deleted); the next one is ${r.id}`);
    if (r.prevHash !== prev)
      return broken(verified, r.id, `record ${r.id} does not carry the hash of record ${expected - 1} (inserted, or its predecessor was replaced)`);
    if (auditHash(r) !== r.hash) return broken(verified, r.id, `record ${r.id} was edited: its fields do not match its hash`);
    prev = r.hash;
    verified++;
  }
  if (head.id > verified) return broken(verified, verified + 1, `record ${verified + 1} is missing (deleted); the chain head says ${head.id} records`);
  if (head.id < verified || head.hash !== prev) return broken(verified, head.id + 1, `record ${head.id + 1} is not in the chain head (inserted)`);
  return { ok: true, verified };
}

const broken = (verified: number, id: number, problem: string): Verdict => ({ ok: false, verified, id, problem });
