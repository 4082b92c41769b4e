/**
 * The Usage page's breakdown (docs/usage.md): the account's usage grouped one way over a date
 * range, as JSON for the table and as the CSV `gateway usage --by ... --csv` prints, for
 * `Export CSV`. Query: `by` (tag:NAME, member, key, model, endpoint, day), `since`, `until`.
 */
import type { H3, H3Event } from "h3";
import { can } from "../access/permissions.js";
import type { Gateway } from "../gateway.js";
import { parseGrouping, usageCsv, usageGroups } from "../operations/usage-groups.js";
import { usageRange } from "../operations/usage-range.js";
import { reply, replyFile } from "./http.js";
import { scoper } from "./scope.js";

export function usageRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  const read = async (event: H3Event) => {
    const { account, role, user } = await scope(event);
    const q = event.url.searchParams;
    const grouping = parseGrouping(q.get("by") ?? "model");
    const range = usageRange({ account, since: q.get("since") ?? undefined, until: q.get("until") ?? undefined }, gw.now());
    // A member reads only the usage of keys they created (src/access/permissions.ts, docs/dashboard.md "Members and roles").
    if (!can(role, "usage.account")) range.member = user.email;
    return { account, rows: await usageGroups(gw.store, grouping, range), by: q.get("by") ?? "model" };
  };
  app.get(`${base}/usage/groups`, async (event) => {
    const { rows } = await read(event);
    return reply(event, 200, { data: rows });
  });
  app.get(`${base}/usage/groups.csv`, async (event) => {
    const { account, rows, by } = await read(event);
    const name = `usage-${account}-${by.replace(/[^A-Za-z0-9_.-]+/g, "-")}.csv`;
    return replyFile(event, usageCsv(rows), "text/csv; charset=utf-8", name);
  });
}
