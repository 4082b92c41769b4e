/**
 * Who a single sign-on identity is here (docs/dashboard.md, "Single sign-on"): the verified
 * email's domain names the account (`dashboard.oidc.allowedDomains`), the role claim the role
 * (else `defaultRole`); the user is created on first sign-in, without a password, and later
 * sign-ins keep their membership in step with the claim.
 */
import type { OidcConfig } from "../config/dashboard.js";
import { ssoRefused } from "../core/errors.js";
import { isRole, ROLES, type Role } from "../core/roles.js";
import type { DashboardUser, Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";
import { normalizeEmail } from "./dashboard-users.js";

/** The claims of an ID token (and UserInfo) that provisioning reads. */
export type Claims = Record<string, unknown>;

export interface SsoIdentity {
  email: string;
  account: string;
  /** The role the claim names; undefined when it names none (then `defaultRole` applies to new members only). */
  claimedRole: Role | undefined;
}

/**
 * The claim's role: a string naming a role, or a list (groups, app roles) of which the most
 * powerful role named wins; anything else names none.
 */
function roleFromClaim(value: unknown): Role | undefined {
  const values = Array.isArray(value) ? value : [value];
  return ROLES.find((r) => values.some((v) => isRole(v) && v === r));
}

/**
 * The email, its account and the claimed role, or a refusal: no email, an email the issuer says
 * is unverified (`email_verified: false`; an issuer that omits the claim is trusted, as the
 * operator chose it), or a domain not in `allowedDomains`.
 */
export function identify(claims: Claims, oidc: OidcConfig): SsoIdentity {
  if (typeof claims.email !== "string" || claims.email === "")
    throw ssoRefused("email_missing", "The identity provider sent no email address (ask it for the `email` scope).");
  if (claims.email_verified === false || claims.email_verified === "false")
    throw ssoRefused("email_unverified", "The identity provider says this email address is not verified.");
  let email: string;
  try {
    email = normalizeEmail(claims.email);
  } catch {
    throw ssoRefused("email_missing", "The identity provider sent no valid email address.");
  }
  const domain = email.slice(email.lastIndexOf("@") + 1);
  const account = Object.hasOwn(oidc.allowedDomains, domain) ? oidc.allowedDomains[domain] : undefined;
  if (account === undefined) throw ssoRefused("domain_not_allowed", `Sign-in with an address at ${domain} is not allowed on this gateway.`);
  return { email, account, claimedRole: oidc.roleClaim === undefined ? undefined : roleFromClaim(claims[oidc.roleClaim]) };
}

/**
 * Who provisioning is recorded as in the audit log (docs/audit.md): `sso:<issuer host>`, the
 * issuer that vouched for the identity, and the address the sign-in came from. Not the user's
 * own email: they asked for nothing, the issuer's claims made the change.
 */
export const ssoBy = (issuer: string, ip: string | null): AuditActor => ({ actor: `sso:${new URL(issuer).host}`, ip });

/** Who signed in, and whether a password someone's invitation had set for them was removed (the sign-in page says so). */
export interface Provisioned {
  user: DashboardUser;
  passwordRemoved: boolean;
}

/**
 * Creates the user on first sign-in (home account = the mapped one, no password) with the
 * claimed role, else `defaultRole`. An existing user joins the account if not a member yet; a
 * claimed role replaces their role there, and without one their role stays as an owner set it.
 * The issuer vouches for the address: a user an account's owner invited loses the password that
 * invitation set, and every session it opened, before any membership opens (vouch below).
 */
export async function provision(store: Store, id: SsoIdentity, defaultRole: Role, now: number, by: AuditActor): Promise<Provisioned> {
  await store.ensureAccount(id.account, now);
  let existing = await store.findUser(id.email);
  if (!existing) {
    const made = await createOnce(store, id, defaultRole, now, by);
    if (made.created) return { user: made.user, passwordRemoved: false };
    existing = made.user;
  }
  const vouched = await vouch(store, existing, id.account, now, by);
  const member = (await store.memberships(id.email)).find((m) => m.account === id.account);
  const role = id.claimedRole ?? member?.role ?? defaultRole;
  if (member?.role !== role) {
    const change = member ? { action: "member.role", before: { role: member.role }, after: { role } } : { action: "member.add", before: null, after: { role } };
    const note = auditNote(by, now, { ...change, account: id.account, target: id.email });
    await store.audited(note).setMembership({ email: id.email, account: id.account, role, createdAt: member?.createdAt ?? now });
  }
  return vouched;
}

/**
 * docs/dashboard.md "Invitations": a user whose password came through an account owner's link
 * (`vouchedBy` set) may be someone else than who the issuer just authenticated. The password and
 * any link go, every session ends (the sign-in starts a new one), and their pending memberships
 * open: the issuer vouched for the address. Recorded as `user.vouched`.
 */
async function vouch(store: Store, user: DashboardUser, account: string, now: number, by: AuditActor): Promise<Provisioned> {
  if (user.vouchedBy === null) return { user, passwordRemoved: false };
  const before = { vouched_by: user.vouchedBy, password_set: user.passwordHash !== null };
  const note = auditNote(by, now, { action: "user.vouched", account, target: user.email, before, after: { vouched_by: null, password_set: false } });
  const changed = await store.audited(note).vouchForUser(user.email);
  return { user: { ...user, passwordHash: null, vouchedBy: null }, passwordRemoved: changed && user.passwordHash !== null };
}

/** The first sign-in's user; when two first sign-ins race, the loser finds the winner's user. */
async function createOnce(store: Store, id: SsoIdentity, defaultRole: Role, now: number, by: AuditActor): Promise<{ user: DashboardUser; created: boolean }> {
  const user: DashboardUser = { email: id.email, account: id.account, admin: false, passwordHash: null, createdAt: now, vouchedBy: null };
  const role = id.claimedRole ?? defaultRole;
  // The same record as `users add` (docs/audit.md); a lost race rolls it back with the insert.
  const note = auditNote(by, now, {
    action: "user.add",
    account: id.account,
    target: id.email,
    before: null,
    after: { account: id.account, admin: false, role },
  });
  try {
    await store.audited(note).createUser(user, role);
    return { user, created: true };
  } catch (err) {
    const winner = await store.findUser(id.email);
    if (!winner) throw err;
    return { user: winner, created: false };
  }
}
