/** What the dashboard reads: the account's usage report, the models it can use with prices, provider health. */
import type { H3 } from "h3";
import { can, requireRole } from "../access/permissions.js";
import type { Gateway } from "../gateway.js";
import { modelEntry } from "../catalog/model-entry.js";
import { usageReport } from "../operations/usage-report.js";
import { reply } from "./http.js";
import { scoper } from "./scope.js";

export function infoRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/usage`, async (event) => {
    const { user, account, role } = await scope(event);
    requireRole(role, "usage.read");
    // A member reads only the usage of the keys they created.
    const member = can(role, "usage.account") ? undefined : user.email;
    return reply(event, 200, await usageReport(gw.store, account, gw.now(), undefined, member));
  });
  // As GET /v1/models lists them for a key of this account: platform models plus its BYOK providers'.
  app.get(`${base}/models`, async (event) => {
    const { account } = await scope(event);
    const byok = await gw.byok.forAccount(account);
    const data = gw.catalog
      .list((plugin) => byok.readable(plugin))
      .map(modelEntry)
      .map((m) => ({ id: m.id, owned_by: m.owned_by, pricing: m.pricing, context_length: m.context_length }));
    return reply(event, 200, { data });
  });
  app.get(`${base}/health`, async (event) => {
    await scope(event);
    const ids = [...gw.instances.values()].filter((i) => i.settings.apiKey !== undefined).map((i) => i.settings.id);
    return reply(event, 200, gw.health.snapshot(gw.now(), ids));
  });
}
