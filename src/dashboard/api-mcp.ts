/**
 * The dashboard's MCP page (docs/mcp.md): the servers and their status, the account's grants, and
 * which keys may call which tools, answered by the same resolution as /mcp (mcp/grants.ts) over
 * the cached tool lists; owners and admins add and remove the account's grants (audited).
 */
import type { H3, H3Event } from "h3";
import { requireRole } from "../access/permissions.js";
import { invalidRequest, UsageError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { grantMcp, listMcpGrants, revokeMcp } from "../operations/mcp-grants.js";
import { dashboardBy } from "./actor.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { McpGrantBody } from "./schemas.js";
import { scoper } from "./scope.js";

export function mcpRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/mcp`, async (event) => {
    const { account, role } = await scope(event);
    requireRole(role, "mcp");
    return reply(event, 200, await mcpView(gw, account));
  });
  app.put(`${base}/mcp/grants`, async (event) => {
    checkOrigin(event, gw.config);
    const body = await readBody(event, McpGrantBody);
    const { user, account, role } = await scope(event, body.account ?? event.url.searchParams.get("account"));
    requireRole(role, "mcp");
    const entry = `${body.server}:${body.tools}`;
    const added = await asBadRequest(() => grantMcp(gw.store, { config: gw.config, account, entry, now: gw.now(), by: dashboardBy(event, gw, user) }));
    gw.mcp.invalidate(); // this process's own write: its store watch does not see it
    return reply(event, 200, added);
  });
  app.delete(`${base}/mcp/grants`, async (event: H3Event) => {
    checkOrigin(event, gw.config);
    const { user, account, role } = await scope(event);
    requireRole(role, "mcp");
    const q = event.url.searchParams;
    const entry = `${q.get("server") ?? ""}:${q.get("tools") ?? "*"}`;
    const removed = await asBadRequest(() => revokeMcp(gw.store, { account, entry, now: gw.now(), by: dashboardBy(event, gw, user) }));
    gw.mcp.invalidate();
    return reply(event, 200, removed);
  });
}

async function mcpView(gw: Gateway, account: string) {
  const servers = gw.mcp.list().map((s) => ({ name: s.spec.name, transport: s.spec.transport, status: s.status, last_error: s.lastError }));
  const keys = await Promise.all(
    (await gw.store.listKeys(account))
      .filter((k) => k.revokedAt === null)
      .map(async (k) => {
        const { tools } = await gw.mcp.granted(await gw.mcp.access(k));
        return { id: k.id, name: k.name, grant: k.mcp ?? null, tools: tools.map((t) => `${t.server.spec.name}__${t.tool.name}`) };
      }),
  );
  return { servers, grants: await listMcpGrants(gw.store, account), keys };
}

/** The CLI's usage errors (an unknown server, a bad glob, no such grant) are the dashboard's 400s. */
async function asBadRequest<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof UsageError ? invalidRequest(err.message, "invalid_mcp_grant") : err;
  }
}
