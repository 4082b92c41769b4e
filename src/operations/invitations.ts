/**
 * Who a dashboard user's password and sessions reach (docs/dashboard.md "Invitations"). A user an
 * account's owner invited got their password through a link that owner held: nothing proves the
 * person who set it owns the address. Their memberships elsewhere therefore stay pending (they
 * open nothing) until someone who can vouch for the address does: the operator's sign-in link
 * (`users add`, `users reset`), an instance administrator's, or single sign-on.
 */
import type { DashboardUser, Membership, Store } from "../store/index.js";

/** Whether the user's password and sessions reach `account`. */
export const opensAccount = (user: Pick<DashboardUser, "vouchedBy">, account: string): boolean => user.vouchedBy === null || user.vouchedBy === account;

/** The memberships the user's sessions reach, oldest first. */
export async function openMemberships(store: Store, user: DashboardUser): Promise<Membership[]> {
  return (await store.memberships(user.email)).filter((m) => opensAccount(user, m.account));
}

/** An account's members, each saying whether the membership is pending (opens nothing yet). */
export async function membersOf(store: Store, account: string): Promise<Array<Membership & { pending: boolean }>> {
  const members = await store.listMembers(account);
  const users = await Promise.all(members.map((m) => store.findUser(m.email)));
  return members.map((m, i) => ({ ...m, pending: !users[i] || !opensAccount(users[i], account) }));
}
