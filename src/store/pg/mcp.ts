/** MCP servers and account grants on PostgreSQL (store/mcp.ts): every write sends the change notice in its transaction (watch.ts). */
import type pg from "pg";
import type { McpAccountGrant, McpServerRecord } from "../mcp.js";
import { num, query, transaction } from "./db.js";
import { notify } from "./watch.js";

interface ServerRow {
  name: string;
  url: string;
  headers: Buffer | null;
  header_names: string[];
  tools: string[] | null;
  timeout_ms: number | null;
  price_per_call: string | null;
  created_at: string;
}

const toServer = (r: ServerRow): McpServerRecord => ({
  name: r.name,
  url: r.url,
  headers: r.headers,
  headerNames: r.header_names,
  tools: r.tools,
  timeoutMs: r.timeout_ms,
  pricePerCall: num(r.price_per_call),
  createdAt: Number(r.created_at),
});

/** Runs one change and its notice together; answers whether a row changed. */
const changing = (pool: pg.Pool, sql: string, values: unknown[]) =>
  transaction(pool, async (c) => {
    const r = await c.query(sql, values);
    await notify(c);
    return (r.rowCount ?? 0) > 0;
  });

export function pgMcp(pool: pg.Pool) {
  return {
    mcpServers: async () => (await query<ServerRow>(pool, "SELECT * FROM mcp_servers ORDER BY name")).rows.map(toServer),
    putMcpServer: async (r: McpServerRecord) =>
      void (await changing(
        pool,
        `INSERT INTO mcp_servers (name, url, headers, header_names, tools, timeout_ms, price_per_call, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
        ON CONFLICT (name) DO UPDATE SET url = excluded.url, headers = excluded.headers, header_names = excluded.header_names,
          tools = excluded.tools, timeout_ms = excluded.timeout_ms, price_per_call = excluded.price_per_call`,
        [r.name, r.url, r.headers, JSON.stringify(r.headerNames), r.tools && JSON.stringify(r.tools), r.timeoutMs, r.pricePerCall, r.createdAt],
      )),
    removeMcpServer: (name: string) => changing(pool, "DELETE FROM mcp_servers WHERE name = $1", [name]),
    mcpGrants: async (account?: string) =>
      (
        await query<{ account: string; server: string; tools: string; created_at: string }>(
          pool,
          "SELECT * FROM mcp_grants WHERE $1::text IS NULL OR account = $1 ORDER BY account, server, tools",
          [account ?? null],
        )
      ).rows.map((r): McpAccountGrant => ({ account: r.account, server: r.server, tools: r.tools, createdAt: Number(r.created_at) })),
    addMcpGrant: (g: McpAccountGrant) =>
      changing(pool, "INSERT INTO mcp_grants (account, server, tools, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [
        g.account,
        g.server,
        g.tools,
        g.createdAt,
      ]),
    removeMcpGrant: (account: string, server: string, tools: string) =>
      changing(pool, "DELETE FROM mcp_grants WHERE account = $1 AND server = $2 AND tools = $3", [account, server, tools]),
  };
}
