/** Credits in the dashboard: balance and history for the account; accounts and Add credits for admins. */
import type { H3 } from "h3";
import { can, requireRole } from "../access/permissions.js";
import { forbidden } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { usdToNanoExact } from "../core/money.js";
import { addCredits } from "../operations/add-credits.js";
import { openMemberships } from "../operations/invitations.js";
import { listAccounts } from "../operations/list-accounts.js";
import { showCredits } from "../operations/show-credits.js";
import { dashboardBy } from "./actor.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { AddCreditsBody } from "./schemas.js";
import { scoper } from "./scope.js";

const HISTORY = 100;

export function creditRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/credits`, async (event) => {
    const { account, role } = await scope(event);
    requireRole(role, "credits.read");
    return reply(event, 200, await showCredits(gw.store, account, HISTORY));
  });
  app.post(`${base}/credits`, async (event) => {
    checkOrigin(event, gw.config);
    const body = await readBody(event, AddCreditsBody);
    const { user } = await scope(event, null);
    if (!user.admin) throw forbidden("Only an admin can add credits.", "admin_only");
    return reply(event, 200, await addCredits(gw.store, body.account, usdToNanoExact(body.amount), { create: false }, gw.now(), dashboardBy(event, gw, user)));
  });
  // Anyone else sees only the accounts whose balance their role there may read.
  app.get(`${base}/accounts`, async (event) => {
    const { user } = await scope(event, null);
    const readable = new Set((await openMemberships(gw.store, user)).filter((m) => can(m.role, "credits.read")).map((m) => m.account));
    return reply(
      event,
      200,
      (await listAccounts(gw.store)).filter((a) => user.admin || readable.has(a.id)),
    );
  });
}
