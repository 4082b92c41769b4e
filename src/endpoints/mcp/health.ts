/**
 * `GET /v1/health/mcp` (public, like /v1/health/providers; docs/mcp.md): each upstream MCP
 * server's status, tool count, connect latency and last check, and a short reason when it is not
 * ok. A server not yet connected is tried first (at most a few seconds). Never a URL, header,
 * token or the server's own error text (mcp/failure.ts).
 */
import type { Gateway } from "../../gateway.js";
import type { UpstreamServer } from "../../mcp/client.js";

/** How long one health request waits for servers it tries. */
const CHECK_WAIT_MS = 3_000;

export async function mcpHealth(gw: Gateway) {
  const servers = gw.mcp.list();
  const counts = await Promise.all(servers.map((s) => toolCount(s)));
  const rows = servers.map((s, i) => ({
    name: s.spec.name,
    transport: s.spec.transport,
    status: s.status,
    tools: counts[i] ?? null,
    latency_ms: s.latencyMs,
    checked_at: s.checkedAt ? new Date(s.checkedAt).toISOString() : null,
    last_error: s.lastError,
  }));
  const ok = rows.filter((r) => r.status === "ok").length;
  const status = rows.length === 0 || ok === rows.length ? "ok" : ok === 0 ? "down" : "degraded";
  return { status, servers: rows };
}

/** The tools the server lists now (through the cache), or null when it does not answer in time. */
async function toolCount(s: UpstreamServer): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, CHECK_WAIT_MS, null)));
  const listed = s.listTools().then(
    (tools) => tools.length,
    () => null,
  );
  return Promise.race([listed, late]).finally(() => clearTimeout(timer));
}
