/**
 * The audit log in the dashboard (docs/audit.md): the records of the account being shown, newest
 * first, for the account's owners and admins (src/access/permissions.ts; an instance admin, who
 * acts as owner in any account, also sees the instance's own records, such as config reloads).
 * Times are UTC.
 */
import type { H3 } from "h3";
import { requireRole } from "../access/permissions.js";
import type { Gateway } from "../gateway.js";
import { auditView } from "../operations/audit-log.js";
import { reply } from "./http.js";
import { scoper } from "./scope.js";

export function auditRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/audit`, async (event) => {
    const { user, account, role } = await scope(event);
    requireRole(role, "audit");
    const records = user.admin
      ? (await gw.store.auditRecords()).filter((r) => r.account === account || r.account === null)
      : await gw.store.auditRecords({ account });
    return reply(event, 200, { account, time_zone: "UTC", records: records.reverse().map(auditView) });
  });
}
