/**
 * `gateway doctor`'s look at each MCP server (docs/mcp.md): reachable, `initialize` answered, how
 * many tools it lists; with `--offline` only that it is configured. Servers added with `gateway
 * mcp add` are read from an existing database only (doctor creates nothing). A failure is the
 * server's safe description (mcp/failure.ts), never a header or URL query.
 */
import { existsSync } from "node:fs";
import { existingSecret } from "../access/byok.js";
import type { Config } from "../config/config.js";
import { isPostgresUrl } from "../core/database-url.js";
import { McpPool } from "../mcp/pool.js";
import { openStore } from "../store/open.js";
import type { Store } from "../store/index.js";
import type { Finding } from "./doctor-checks.js";

export async function mcpFindings(config: Config, offline: boolean): Promise<Finding[]> {
  const stored = isPostgresUrl(config.database) || (config.database !== ":memory:" && existsSync(config.database));
  if (!stored && Object.keys(config.mcp.servers).length === 0) return [];
  const store = stored ? await openStore(config.database).catch(() => undefined) : undefined;
  try {
    const secret = existingSecret(config.database, process.env) ?? Buffer.alloc(32);
    const pool = new McpPool({ config, store: store ?? noStore(), secret, now: Date.now, warn: () => undefined });
    try {
      await pool.refresh();
      return await Promise.all(pool.list().map((s) => finding(s, offline)));
    } finally {
      await pool.close();
    }
  } finally {
    await store?.close();
  }
}

async function finding(s: ReturnType<McpPool["list"]>[number], offline: boolean): Promise<Finding> {
  const check = `mcp ${s.spec.name}`;
  if (s.spec.problem) return { check, status: "fail", message: s.spec.problem };
  if (offline) return { check, status: "ok", message: `${s.spec.transport} server configured (not contacted: --offline)` };
  const started = Date.now();
  try {
    const tools = await s.listTools();
    return { check, status: tools.length ? "ok" : "warn", message: `reachable, initialize answered, ${tools.length} tools (${Date.now() - started} ms)` };
  } catch {
    return { check, status: "fail", message: `${s.spec.transport} server ${s.lastError ?? "failed"}` };
  }
}

/** No database yet: only the config's servers exist. */
const noStore = (): Store => ({ mcpServers: async () => [], mcpGrants: async () => [] }) as unknown as Store;
