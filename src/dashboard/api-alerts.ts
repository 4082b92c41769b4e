/**
 * Alerts in the dashboard (docs/alerts.md): the banner every member of an account sees, and the
 * delivery log with the account's webhooks and thresholds for its owners and admins (and instance
 * admins). Webhooks are added from the CLI; their secrets never reach a page.
 */
import type { H3 } from "h3";
import { bannerAlerts } from "../alerts/banner.js";
import { can, requireRole } from "../access/permissions.js";
import type { Gateway } from "../gateway.js";
import { listDeliveries } from "../operations/alert-deliveries.js";
import { showAlertSettings } from "../operations/alert-settings.js";
import { listWebhooks } from "../operations/alert-webhooks.js";
import { reply } from "./http.js";
import { scoper } from "./scope.js";

const LOG = 100;

export function alertRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/alerts/banner`, async (event) => {
    const { account, role, user } = await scope(event);
    // A member sees only their own share of the account (src/access/permissions.ts "usage.account").
    const only = can(role, "usage.account") ? undefined : user.email;
    return reply(event, 200, { account, alerts: await bannerAlerts(gw.store, account, gw.now(), only) });
  });
  app.get(`${base}/alerts`, async (event) => {
    const { account, role } = await scope(event);
    requireRole(role, "alerts"); // owners and admins (src/access/permissions.ts)
    return reply(event, 200, {
      account,
      thresholds: await showAlertSettings(gw.store, account),
      webhooks: await listWebhooks(gw.store, account),
      deliveries: await listDeliveries(gw.store, { account, limit: LOG }),
    });
  });
}
