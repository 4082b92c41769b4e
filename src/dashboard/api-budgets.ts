/**
 * Budgets in the dashboard (docs/dashboard.md "Budgets", docs/limits.md "Budgets"): the
 * account's and each member's, with spend and what remains; set and removed by the account's
 * owners and admins (and instance administrators): src/access/permissions.ts. The same operations as `gateway budgets`.
 */
import type { H3 } from "h3";
import { requireRole } from "../access/permissions.js";
import type { Gateway } from "../gateway.js";
import { usdToNanoExact } from "../core/money.js";
import { listBudgets, removeBudget, setBudget } from "../operations/account-budgets.js";
import { dashboardBy } from "./actor.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { SetBudgetBody } from "./schemas.js";
import { scoper } from "./scope.js";

export function budgetRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/budgets`, async (event) => {
    const { account, role } = await scope(event);
    requireRole(role, "budgets");
    const members = (await gw.store.listMembers(account)).map((m) => m.email);
    return reply(event, 200, { budgets: await listBudgets(gw.store, account, gw.now()), members });
  });
  app.put(`${base}/budgets`, async (event) => {
    checkOrigin(event, gw.config);
    const body = await readBody(event, SetBudgetBody);
    const { user, account, role } = await scope(event, body.account);
    requireRole(role, "budgets");
    const b = { account, member: body.member, amount: usdToNanoExact(body.amount), period: body.period };
    return reply(event, 200, await setBudget(gw.store, b, gw.now(), dashboardBy(event, gw, user)));
  });
  // `?member=<email>` removes that member's budget; without it, the account's own.
  app.delete(`${base}/budgets`, async (event) => {
    const { user, account, role } = await scope(event);
    requireRole(role, "budgets");
    const member = event.url.searchParams.get("member");
    await removeBudget(gw.store, account, member || null, gw.now(), dashboardBy(event, gw, user));
    return reply(event, 200, { account, member: member || null, removed: true });
  });
}
