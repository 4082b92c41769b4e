/**
 * Which account a dashboard request acts on: an account holder's own, always; an admin's
 * choice (`?account=` or a body field), else their own. An account holder naming another
 * account gets the same 404 as a missing one: nothing tells them it exists.
 */
import type { H3Event } from "h3";
import { notFound } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { DashboardUser } from "../store/index.js";
import { checkOrigin } from "./http.js";
import { currentUser } from "./session.js";

function accountFor(user: DashboardUser, requested: string | null | undefined): string {
  if (!requested || requested === user.account) return user.account;
  if (user.admin) return requested;
  throw notFound(`account '${requested}' does not exist`, "account_not_found");
}

export type Scope = (event: H3Event, requested?: string | null) => Promise<{ user: DashboardUser; account: string }>;

/**
 * The signed-in user and the account this request acts on (`requested`, else `?account=`).
 * A state-changing request passes the Origin check before anything else is looked at.
 */
export function scoper(gw: Gateway): Scope {
  return async (event, requested) => {
    if (event.req.method !== "GET" && event.req.method !== "HEAD") checkOrigin(event, gw.config);
    const user = await currentUser(gw, event);
    return { user, account: accountFor(user, requested === undefined ? event.url.searchParams.get("account") : requested) };
  };
}

/** A path parameter, decoded. */
export const param = (event: H3Event, name: string): string => decodeURIComponent(event.context.params![name]!);
