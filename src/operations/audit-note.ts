/**
 * What an operation tells the audit log about its change (docs/audit.md): who, the stable action
 * name, the target, and before/after of the changed fields, never a secret: no key value or hash,
 * no BYOK key, no password hash, no token.
 */
import { nanoToUsd } from "../core/money.js";
import type { AuditActor, AuditFields, AuditNote, KeyRecord } from "../store/index.js";

export type { AuditActor };

export interface Change {
  action: string;
  account: string | null;
  target: string;
  before: AuditFields;
  after: AuditFields;
}

export const auditNote = (by: AuditActor, at: number, c: Change): AuditNote => ({ actor: by.actor, ip: by.ip, at, ...c });

const iso = (t: number | null | undefined) => (t === null || t === undefined ? null : new Date(t).toISOString());

/** A key's audited fields: its settings, never its value, hash or last four characters. */
export function keyFields(k: KeyRecord): Record<string, unknown> {
  return {
    name: k.name,
    account: k.account,
    expires_at: iso(k.expiresAt),
    revoked_at: iso(k.revokedAt),
    rpm: k.rpm,
    budget: k.budget === null || k.budget === undefined ? null : nanoToUsd(k.budget),
    budget_period: k.budgetPeriod ?? "total",
    cache: k.cache ?? "off",
    created_by: k.createdBy ?? null,
    limits_by_manager: k.limitsByManager ?? false,
    mcp: k.mcp?.length ? k.mcp : null,
    ...(k.guardrails ? { guardrails: k.guardrails } : {}), // docs/guardrails.md; only when the key has its own mode
  };
}

/** Only the fields whose values differ, before and after. */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): { before: AuditFields; after: AuditFields } {
  const keys = Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  return { before: Object.fromEntries(keys.map((k) => [k, before[k] ?? null])), after: Object.fromEntries(keys.map((k) => [k, after[k]])) };
}
