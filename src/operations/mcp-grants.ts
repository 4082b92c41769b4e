/**
 * `gateway mcp grant|revoke|grants` (docs/mcp.md, "Grants"): what an account lets its keys be
 * granted, one row per server and tool glob; none set means every configured server. Each change
 * is audited; a running server sees it within 1 s (5 s across a fleet), as a revocation.
 */
import type { Config } from "../config/config.js";
import { UsageError } from "../core/errors.js";
import { parseGrant } from "../mcp/grants.js";
import type { Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";
import { notFound } from "./mcp-servers.js";

const iso = (t: number) => new Date(t).toISOString();

async function knownServer(store: Store, config: Config, server: string): Promise<void> {
  const known = [...Object.keys(config.mcp.servers), ...(await store.mcpServers()).map((r) => r.name)];
  if (!known.includes(server)) throw notFound(server, known);
}

export async function grantMcp(store: Store, o: { config: Config; account: string; entry: string; now: number; by: AuditActor }) {
  const { server, tools } = parseGrant(o.entry);
  await knownServer(store, o.config, server);
  const note = auditNote(o.by, o.now, {
    action: "mcp.grant",
    account: o.account,
    target: `${o.account}/${server}:${tools}`,
    before: null,
    after: { server, tools },
  });
  const added = await store.audited(note).addMcpGrant({ account: o.account, server, tools, createdAt: o.now });
  return { account: o.account, server, tools, added };
}

export async function revokeMcp(store: Store, o: { account: string; entry: string; now: number; by: AuditActor }) {
  const { server, tools } = parseGrant(o.entry);
  const note = auditNote(o.by, o.now, {
    action: "mcp.revoke",
    account: o.account,
    target: `${o.account}/${server}:${tools}`,
    before: { server, tools },
    after: null,
  });
  if (!(await store.audited(note).removeMcpGrant(o.account, server, tools))) {
    const rows = await store.mcpGrants(o.account);
    const have = rows.map((r) => `${r.server}:${r.tools}`);
    throw new UsageError(
      `account '${o.account}' has no MCP grant '${server}:${tools}'${have.length ? ` (it has: ${have.join(", ")})` : " (it has none: every configured server is open to its keys' grants)"}`,
    );
  }
  return { account: o.account, server, tools, revoked: true };
}

export async function listMcpGrants(store: Store, account?: string) {
  return (await store.mcpGrants(account)).map((g) => ({ account: g.account, server: g.server, tools: g.tools, created_at: iso(g.createdAt) }));
}
