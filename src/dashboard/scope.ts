/**
 * Which account a dashboard request acts on, and the user's role there (docs/dashboard.md,
 * "Members and roles"): one of the user's memberships (`?account=` or a body field), else
 * their home account. An instance administrator acts on any account, as `owner`. An account
 * the user does not belong to gets the same 404 as a missing one: nothing tells them it exists.
 * Sessions and memberships are read from the store on every request, so a role changed or a
 * member removed on any process of a fleet applies to the very next request.
 */
import type { H3Event } from "h3";
import { notFound } from "../core/errors.js";
import type { Role } from "../core/roles.js";
import type { Gateway } from "../gateway.js";
import type { DashboardUser, Membership, Store } from "../store/index.js";
import { openMemberships } from "../operations/invitations.js";
import { checkOrigin } from "./http.js";
import { currentUser } from "./session.js";

interface Scoped {
  user: DashboardUser;
  account: string;
  role: Role;
}

const noSuchAccount = (account: string) => notFound(`account '${account}' does not exist`, "account_not_found");

/** Where the dashboard opens: the home account while the user belongs to it, else their oldest membership. */
export function homeAccount(user: DashboardUser, memberships: Membership[]): string {
  if (user.admin || memberships.some((m) => m.account === user.account)) return user.account;
  return memberships[0]?.account ?? user.account;
}

/**
 * The user's role in `account`, or the 404 of an account that does not exist. A pending
 * membership (docs/dashboard.md "Invitations") is no membership here.
 */
export async function roleIn(store: Store, user: DashboardUser, account: string, memberships?: Membership[]): Promise<Role> {
  if (user.admin) return "owner";
  const m = (memberships ?? (await openMemberships(store, user))).find((x) => x.account === account);
  if (!m) throw noSuchAccount(account);
  return m.role;
}

export type Scope = (event: H3Event, requested?: string | null) => Promise<Scoped>;

/**
 * The signed-in user, the account this request acts on (`requested`, else `?account=`) and
 * their role in it. A state-changing request passes the Origin check before anything else.
 */
export function scoper(gw: Gateway): Scope {
  return async (event, requested) => {
    if (event.req.method !== "GET" && event.req.method !== "HEAD") checkOrigin(event, gw.config);
    const user = await currentUser(gw, event);
    const memberships = await openMemberships(gw.store, user);
    const asked = requested === undefined ? event.url.searchParams.get("account") : requested;
    const account = asked || homeAccount(user, memberships);
    return { user, account, role: await roleIn(gw.store, user, account, memberships) };
  };
}

/** A path parameter, decoded. */
export const param = (event: H3Event, name: string): string => decodeURIComponent(event.context.params![name]!);
