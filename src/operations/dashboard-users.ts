/** Dashboard users (`gateway users add|reset|list|remove`): who may sign in, to which account. */
import { invalidRequest, notFound } from "../core/errors.js";
import type { Role } from "../core/roles.js";
import type { DashboardUser, Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";
import { issueSignInLink } from "./sign-in-link.js";

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Emails compare case-insensitively: stored lower-case. */
export function normalizeEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (!EMAIL.test(e) || e.length > 254) throw invalidRequest(`'${email}' is not an email address`, null, "email");
  return e;
}

const view = (u: DashboardUser) => ({
  email: u.email,
  account: u.account,
  admin: u.admin,
  password_set: u.passwordHash !== null,
  vouched_by: u.vouchedBy,
  created_at: new Date(u.createdAt).toISOString(),
});

/** Who adds a user: `vouchedBy` null is the operator or an instance administrator, else the inviting account's owner (docs/dashboard.md "Invitations"). */
export interface NewUser {
  email: string;
  account: string;
  admin: boolean;
  role?: Role;
  vouchedBy?: string | null;
}

/** A new user, owner of `account` unless `role` says otherwise, with a sign-in link (the operator's unless `vouchedBy` names the inviting account). */
export async function addUser(store: Store, u: NewUser, baseUrl: string, now: number, by: AuditActor) {
  const email = normalizeEmail(u.email);
  if (await store.findUser(email))
    throw invalidRequest(`a dashboard user '${email}' already exists (gateway users reset prints a new link)`, "user_exists", "email");
  await store.ensureAccount(u.account, now);
  const role = u.role ?? "owner";
  const vouchedBy = u.vouchedBy ?? null;
  const after = { account: u.account, admin: u.admin, role, vouched_by: vouchedBy };
  const note = auditNote(by, now, { action: "user.add", account: u.account, target: email, before: null, after });
  await store.audited(note).createUser({ email, account: u.account, admin: u.admin, passwordHash: null, createdAt: now, vouchedBy }, role);
  return { email, account: u.account, admin: u.admin, role, ...(await issueSignInLink(store, email, vouchedBy, baseUrl, now)) };
}

/**
 * The operator's new link; the old password keeps working until the link is used (so a stranger's
 * reset locks nobody out). A password set through it is the operator's (vouchedBy null).
 */
export async function resetUser(store: Store, rawEmail: string, baseUrl: string, now: number, by: AuditActor, why?: string) {
  const email = normalizeEmail(rawEmail);
  const user = await store.findUser(email);
  if (!user) throw notFound(`no dashboard user '${email}'`, "user_not_found");
  // The link itself is a credential: the record says only that one was issued, and until when.
  const note = (expiresAt: number) =>
    auditNote(by, now, {
      action: "user.reset",
      account: user.account,
      target: email,
      before: null,
      after: { link_expires_at: new Date(expiresAt).toISOString(), ...(why ? { reason: why } : {}) },
    });
  return { email, account: user.account, admin: user.admin, ...(await issueSignInLink(store, email, null, baseUrl, now, note)) };
}

export async function listUsers(store: Store) {
  return (await store.listUsers()).map(view);
}

export async function removeUser(store: Store, rawEmail: string, now: number, by: AuditActor) {
  const email = normalizeEmail(rawEmail);
  const user = await store.findUser(email);
  const before = user ? { account: user.account, admin: user.admin } : null;
  const note = auditNote(by, now, { action: "user.remove", account: user?.account ?? null, target: email, before, after: null });
  if (!(await store.audited(note).removeUser(email))) throw notFound(`no dashboard user '${email}'`, "user_not_found");
  return { email, removed: true };
}

/**
 * A password chosen through a sign-in link (the hash only reaches the store; the record says only
 * that one is set), vouched for by whoever the link was issued for (`vouchedBy`).
 */
export async function setUserPassword(store: Store, user: DashboardUser, passwordHash: string, vouchedBy: string | null, now: number, by: AuditActor) {
  const before = { password_set: user.passwordHash !== null, vouched_by: user.vouchedBy };
  const after = { password_set: true, vouched_by: vouchedBy };
  const note = auditNote(by, now, { action: "user.password", account: user.account, target: user.email, before, after });
  await store.audited(note).setPassword(user.email, passwordHash, vouchedBy);
}
