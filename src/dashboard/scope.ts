/**
 * Which account a dashboard request acts on: an account holder's own, always; an admin's
 * choice (`?account=` or a body field), else their own. An account holder naming another
 * account gets the same 404 as a missing one: nothing tells them it exists.
 */
import { notFound } from "../errors.js";
import type { DashboardUser } from "../store/index.js";

export function accountFor(user: DashboardUser, requested: string | null | undefined): string {
  if (!requested || requested === user.account) return user.account;
  if (user.admin) return requested;
  throw notFound(`account '${requested}' does not exist`, "account_not_found");
}
