/** MCP servers and account grants on SQLite (store/mcp.ts): lists as JSON text, headers as a sealed blob. */
import type Database from "better-sqlite3";
import type { McpAccountGrant, McpServerRecord } from "../mcp.js";

interface ServerRow {
  name: string;
  url: string;
  headers: Buffer | null;
  headerNames: string;
  tools: string | null;
  timeoutMs: number | null;
  pricePerCall: number | null;
  createdAt: number;
}

const toServer = (r: ServerRow): McpServerRecord => ({
  ...r,
  headerNames: JSON.parse(r.headerNames) as string[],
  tools: r.tools === null ? null : (JSON.parse(r.tools) as string[]),
});

export function sqliteMcp(db: Database.Database) {
  const s = {
    servers: db.prepare(`SELECT name, url, headers, header_names AS headerNames, tools, timeout_ms AS timeoutMs, price_per_call AS pricePerCall,
      created_at AS createdAt FROM mcp_servers ORDER BY name`),
    put: db.prepare(`INSERT INTO mcp_servers (name, url, headers, header_names, tools, timeout_ms, price_per_call, created_at)
      VALUES (@name, @url, @headers, @headerNames, @tools, @timeoutMs, @pricePerCall, @createdAt)
      ON CONFLICT (name) DO UPDATE SET url = excluded.url, headers = excluded.headers, header_names = excluded.header_names,
        tools = excluded.tools, timeout_ms = excluded.timeout_ms, price_per_call = excluded.price_per_call`),
    remove: db.prepare("DELETE FROM mcp_servers WHERE name = ?"),
    grants: db.prepare(`SELECT account, server, tools, created_at AS createdAt FROM mcp_grants
      WHERE @account IS NULL OR account = @account ORDER BY account, server, tools`),
    grant: db.prepare("INSERT OR IGNORE INTO mcp_grants (account, server, tools, created_at) VALUES (@account, @server, @tools, @createdAt)"),
    revoke: db.prepare("DELETE FROM mcp_grants WHERE account = ? AND server = ? AND tools = ?"),
  };
  return {
    mcpServers: () => (s.servers.all() as ServerRow[]).map(toServer),
    putMcpServer: (r: McpServerRecord) =>
      void s.put.run({ ...r, headerNames: JSON.stringify(r.headerNames), tools: r.tools === null ? null : JSON.stringify(r.tools) }),
    removeMcpServer: (name: string) => s.remove.run(name).changes > 0,
    mcpGrants: (account?: string) => s.grants.all({ account: account ?? null }) as McpAccountGrant[],
    addMcpGrant: (g: McpAccountGrant) => s.grant.run(g).changes > 0,
    removeMcpGrant: (account: string, server: string, tools: string) => s.revoke.run(account, server, tools).changes > 0,
  };
}
