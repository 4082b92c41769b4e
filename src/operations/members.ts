/**
 * Members of an account and their roles (`gateway members`, `users add --role`, the dashboard's
 * Members page; docs/dashboard.md, "Members and roles"). An account keeps at least one owner.
 */
import { invalidRequest, lastOwner, notFound } from "../core/errors.js";
import { isRole, ROLES, type Role } from "../core/roles.js";
import type { Membership, Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";
import { addUser, normalizeEmail, resetUser } from "./dashboard-users.js";
import { membersOf, opensAccount } from "./invitations.js";

export function roleOf(value: string): Role {
  if (!isRole(value)) throw invalidRequest(`'${value}' is not a role: use ${ROLES.join(", ")}`, "invalid_role", "role");
  return value;
}

const view = (m: Membership & { pending: boolean }) => ({ email: m.email, role: m.role, pending: m.pending, created_at: new Date(m.createdAt).toISOString() });

export async function listMembers(store: Store, account: string) {
  return (await membersOf(store, account)).map(view);
}

/**
 * Adds `email` to the account with `role`. Someone new becomes a dashboard user whose home is
 * this account, with a one-time sign-in link issued for whoever adds them (`vouchedBy`: null for
 * the operator or an instance administrator, else this account). An existing user keeps their
 * password; when someone else's invitation set it, the membership is pending (invitations.ts):
 * the operator (`vouchedBy` null) then gets a new link for the person, an owner gets none (their
 * link would open the user's other accounts too) and is told who can vouch.
 */
export async function addMember(
  store: Store,
  m: { email: string; account: string; role: Role; vouchedBy: string | null },
  baseUrl: string,
  now: number,
  by: AuditActor,
) {
  const email = normalizeEmail(m.email);
  const existing = await store.findUser(email);
  if (!existing) {
    const added = await addUser(store, { email, account: m.account, admin: false, role: m.role, vouchedBy: m.vouchedBy }, baseUrl, now, by);
    return {
      email,
      account: m.account,
      role: m.role,
      created: true,
      pending: false,
      link: added.link as string | null,
      expires_at: added.expires_at as string | null,
    };
  }
  if (await membershipOf(store, email, m.account))
    throw invalidRequest(`'${email}' is already a member of '${m.account}' (gateway members set-role changes the role)`, "member_exists", "email");
  const pending = !opensAccount(existing, m.account);
  const note = auditNote(by, now, {
    action: "member.add",
    account: m.account,
    target: email,
    before: null,
    after: { role: m.role, ...(pending && { pending }) },
  });
  await store.audited(note).setMembership({ email, account: m.account, role: m.role, createdAt: now });
  const link = pending && m.vouchedBy === null ? await resetUser(store, email, baseUrl, now, by, `joined '${m.account}'`) : undefined;
  return { email, account: m.account, role: m.role, created: false, pending, link: link?.link ?? null, expires_at: link?.expires_at ?? null };
}

/**
 * `gateway users add`: a new user as before; an existing one joins `account` with `role` and
 * keeps their password (`link` null), unless another account's invitation set it: then the
 * membership is pending and `link` is a new one for the person (addMember). `--admin` cannot be
 * given to an existing user this way.
 */
export async function addUserOrMember(
  store: Store,
  u: { email: string; account: string; admin: boolean; role: Role },
  baseUrl: string,
  now: number,
  by: AuditActor,
) {
  const existing = await store.findUser(normalizeEmail(u.email));
  if (!existing) return addUser(store, u, baseUrl, now, by);
  if (u.admin && !existing.admin)
    throw invalidRequest(`a dashboard user '${existing.email}' already exists; --admin applies to new users only`, "user_exists", "email");
  const added = await addMember(store, { ...u, vouchedBy: null }, baseUrl, now, by);
  return {
    email: added.email,
    account: u.account,
    admin: existing.admin,
    role: u.role,
    pending: added.pending,
    link: added.link,
    expires_at: added.expires_at,
  };
}

export async function setMemberRole(store: Store, rawEmail: string, account: string, role: Role, now: number, by: AuditActor) {
  const current = await existingMember(store, rawEmail, account);
  if (current.role === "owner" && role !== "owner") await keepAnOwner(store, current);
  const note = auditNote(by, now, { action: "member.role", account, target: current.email, before: { role: current.role }, after: { role } });
  if (current.role !== role) await store.audited(note).setMembership({ email: current.email, account, role, createdAt: current.createdAt });
  return view({ ...current, role });
}

/** The user stays (with their other memberships and the keys they created); only this membership goes. */
export async function removeMember(store: Store, rawEmail: string, account: string, now: number, by: AuditActor) {
  const current = await existingMember(store, rawEmail, account);
  if (current.role === "owner") await keepAnOwner(store, current);
  const note = auditNote(by, now, { action: "member.remove", account, target: current.email, before: { role: current.role }, after: null });
  await store.audited(note).removeMembership(current.email, account);
  return { email: current.email, account, removed: true };
}

/** The user's role in the account; undefined when they are not a member. */
async function membershipOf(store: Store, email: string, account: string): Promise<Membership | undefined> {
  return (await store.memberships(email)).find((m) => m.account === account);
}

async function existingMember(store: Store, rawEmail: string, account: string): Promise<Membership & { pending: boolean }> {
  const email = normalizeEmail(rawEmail);
  const m = await membershipOf(store, email, account);
  const user = m && (await store.findUser(email));
  if (!m || !user) throw notFound(`'${email}' is not a member of '${account}'`, "member_not_found");
  return { ...m, pending: !opensAccount(user, account) };
}

/**
 * Refuses when the owner about to go is the account's only one. A pending owner opens nothing,
 * so counts for none: the account must keep an owner who can sign in to it.
 */
async function keepAnOwner(store: Store, leaving: Membership & { pending: boolean }): Promise<void> {
  if (leaving.pending) return;
  const owners = (await membersOf(store, leaving.account)).filter((m) => m.role === "owner" && !m.pending);
  if (owners.length <= 1) throw lastOwner(leaving.account);
}
