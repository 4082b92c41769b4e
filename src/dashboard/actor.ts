/** Who a dashboard change is recorded as in the audit log (docs/audit.md): the user's email and the client's address. */
import type { H3Event } from "h3";
import type { Gateway } from "../gateway.js";
import { eventClientIp } from "../http/client-ip.js";
import type { AuditActor, DashboardUser } from "../store/index.js";

export const dashboardBy = (event: H3Event, gw: Gateway, user: Pick<DashboardUser, "email">): AuditActor => ({
  actor: user.email,
  ip: eventClientIp(event, gw.config.server),
});
