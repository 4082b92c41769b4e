/** Dashboard users (`gateway users add|reset|list|remove`): who may sign in, to which account. */
import { invalidRequest, notFound } from "../core/errors.js";
import type { Role } from "../core/roles.js";
import type { DashboardUser, Store } from "../store/index.js";
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
  created_at: new Date(u.createdAt).toISOString(),
});

/** A new user, owner of `account` unless `role` says otherwise, with a sign-in link. */
export async function addUser(store: Store, u: { email: string; account: string; admin: boolean; role?: Role }, baseUrl: string, now: number) {
  const email = normalizeEmail(u.email);
  if (await store.findUser(email))
    throw invalidRequest(`a dashboard user '${email}' already exists (gateway users reset prints a new link)`, "user_exists", "email");
  await store.ensureAccount(u.account, now);
  const role = u.role ?? "owner";
  await store.createUser({ email, account: u.account, admin: u.admin, passwordHash: null, createdAt: now }, role);
  return { email, account: u.account, admin: u.admin, role, ...(await issueSignInLink(store, email, baseUrl, now)) };
}

/** A new link; the old password keeps working until the link is used (so a stranger's reset locks nobody out). */
export async function resetUser(store: Store, rawEmail: string, baseUrl: string, now: number) {
  const email = normalizeEmail(rawEmail);
  const user = await store.findUser(email);
  if (!user) throw notFound(`no dashboard user '${email}'`, "user_not_found");
  return { email, account: user.account, admin: user.admin, ...(await issueSignInLink(store, email, baseUrl, now)) };
}

export async function listUsers(store: Store) {
  return (await store.listUsers()).map(view);
}

export async function removeUser(store: Store, rawEmail: string) {
  const email = normalizeEmail(rawEmail);
  if (!(await store.removeUser(email))) throw notFound(`no dashboard user '${email}'`, "user_not_found");
  return { email, removed: true };
}
