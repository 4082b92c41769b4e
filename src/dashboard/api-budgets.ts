/**
 * Budgets in the dashboard (docs/dashboard.md "Budgets", docs/limits.md "Budgets"): the
 * account's and each member's, with spend and what remains; set and removed by the account's
 * owners and admins (and instance administrators). The same operations as `gateway budgets`.
 */
import type { H3 } from "h3";
import { forbidden } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { usdToNanoExact } from "../core/money.js";
import { listBudgets, removeBudget, setBudget } from "../operations/budgets.js";
import type { DashboardUser } from "../store/index.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { SetBudgetBody } from "./schemas.js";
import { scoper } from "./scope.js";

async function mustManage(gw: Gateway, user: DashboardUser, account: string): Promise<void> {
  if (user.admin) return;
  const role = (await gw.store.memberships(user.email)).find((m) => m.account === account)?.role;
  if (role !== "owner" && role !== "admin") throw forbidden("Only the account's owners and admins manage budgets.", "role_required");
}

export function budgetRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/budgets`, async (event) => {
    const { user, account } = await scope(event);
    await mustManage(gw, user, account);
    const members = (await gw.store.listMembers(account)).map((m) => m.email);
    return reply(event, 200, { budgets: await listBudgets(gw.store, account, gw.now()), members });
  });
  app.put(`${base}/budgets`, async (event) => {
    checkOrigin(event, gw.config);
    const body = await readBody(event, SetBudgetBody);
    const { user, account } = await scope(event, body.account);
    await mustManage(gw, user, account);
    const b = { account, member: body.member, amount: usdToNanoExact(body.amount), period: body.period };
    return reply(event, 200, await setBudget(gw.store, b, gw.now()));
  });
  // `?member=<email>` removes that member's budget; without it, the account's own.
  app.delete(`${base}/budgets`, async (event) => {
    const { user, account } = await scope(event);
    await mustManage(gw, user, account);
    const member = event.url.searchParams.get("member");
    await removeBudget(gw.store, account, member || null);
    return reply(event, 200, { account, member: member || null, removed: true });
  });
}
