/**
 * The Members page's API (owners, and instance administrators): list an account's members,
 * add one by email (someone new gets a one-time sign-in link), change a role, remove a member.
 * The same operations as `gateway members` and `users add --role`; the account keeps an owner.
 */
import type { H3 } from "h3";
import { requireRole } from "../access/permissions.js";
import type { Gateway } from "../gateway.js";
import { addMember, listMembers, removeMember, setMemberRole } from "../operations/members.js";
import { dashboardBy } from "./actor.js";
import { checkOrigin, expectedOrigin, readBody, reply } from "./http.js";
import { AddMemberBody, SetRoleBody } from "./schemas.js";
import { param, scoper } from "./scope.js";

export function memberRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/members`, async (event) => {
    const { account, role } = await scope(event);
    requireRole(role, "members");
    return reply(event, 200, await listMembers(gw.store, account));
  });
  app.post(`${base}/members`, async (event) => {
    checkOrigin(event, gw.config);
    const body = await readBody(event, AddMemberBody);
    const { user, account, role } = await scope(event, body.account ?? event.url.searchParams.get("account"));
    requireRole(role, "members");
    // Links point where this page was loaded from (dashboard.url when set), as the browser sees it.
    const baseUrl = expectedOrigin(event, gw.config) ?? "";
    // An owner vouches for their own account only; an instance administrator as the operator does (docs/dashboard.md "Invitations").
    const m = { email: body.email, account, role: body.role, vouchedBy: user.admin ? null : account };
    return reply(event, 201, await addMember(gw.store, m, baseUrl, gw.now(), dashboardBy(event, gw, user)));
  });
  app.put(`${base}/members/:email`, async (event) => {
    checkOrigin(event, gw.config);
    const body = await readBody(event, SetRoleBody);
    const { user, account, role } = await scope(event, body.account ?? event.url.searchParams.get("account"));
    requireRole(role, "members");
    return reply(event, 200, await setMemberRole(gw.store, param(event, "email"), account, body.role, gw.now(), dashboardBy(event, gw, user)));
  });
  app.delete(`${base}/members/:email`, async (event) => {
    const { user, account, role } = await scope(event);
    requireRole(role, "members");
    return reply(event, 200, await removeMember(gw.store, param(event, "email"), account, gw.now(), dashboardBy(event, gw, user)));
  });
}
