/**
 * Alerts in the dashboard (docs/alerts.md): the banner every member of an account sees, and the
 * delivery log with the account's webhooks and thresholds for its owners and admins (and instance
 * admins). Webhooks are added from the CLI; their secrets never reach a page.
 */
import type { H3 } from "h3";
import { bannerAlerts } from "../alerts/banner.js";
import { forbidden } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { listDeliveries } from "../operations/alert-deliveries.js";
import { showAlertSettings } from "../operations/alert-settings.js";
import { listWebhooks } from "../operations/alert-webhooks.js";
import type { DashboardUser } from "../store/index.js";
import { reply } from "./http.js";
import { scoper } from "./scope.js";

const LOG = 100;

/** An owner or admin of the account, or an instance admin: who manages alerts (docs/dashboard.md roles). */
async function mayManage(gw: Gateway, user: DashboardUser, account: string): Promise<boolean> {
  if (user.admin) return true;
  const role = (await gw.store.memberships(user.email)).find((m) => m.account === account)?.role;
  return role === "owner" || role === "admin";
}

export function alertRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/alerts/banner`, async (event) => {
    const { account } = await scope(event);
    return reply(event, 200, { account, alerts: await bannerAlerts(gw.store, account, gw.now()) });
  });
  app.get(`${base}/alerts`, async (event) => {
    const { user, account } = await scope(event);
    if (!(await mayManage(gw, user, account))) throw forbidden("Only an owner or admin of the account sees its alerts.", "role_required");
    return reply(event, 200, {
      account,
      thresholds: await showAlertSettings(gw.store, account),
      webhooks: await listWebhooks(gw.store, account),
      deliveries: await listDeliveries(gw.store, { account, limit: LOG }),
    });
  });
}
