/**
 * `gateway mcp add|remove|list|tools` (docs/mcp.md, "Adding a server"): a server added from the
 * CLI is stored with its headers sealed (mcp/credentials.ts) and audited without them; listing
 * connects to each server as `serve` would (status, tool count, a safe last error). A name the
 * config file uses is the config's: `add` refuses it rather than shadow it.
 */
import { McpHttpServer, McpServerName } from "../config/mcp.js";
import type { Config } from "../config/config.js";
import { nearMiss } from "../config/diagnostics.js";
import { UsageError } from "../core/errors.js";
import { usdToNano } from "../core/money.js";
import { validate } from "../core/validate.js";
import { sealHeaders } from "../mcp/credentials.js";
import { McpPool } from "../mcp/pool.js";
import type { Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";

export interface NewMcpServer {
  name: string;
  url: string;
  /** `Name: value` lines as `--header` gives them. */
  headers: string[];
  tools?: string[];
  timeoutMs?: number;
  pricePerCall?: string;
}

/** A URL as it may be shown: no credentials, no query (a token may sit in either). */
const shownUrl = (url: string): string => {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
};

function parseHeaders(lines: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(":");
    const name = at < 0 ? "" : line.slice(0, at).trim();
    if (!/^[A-Za-z0-9-]+$/.test(name))
      throw new UsageError(`--header: expected "Name: value" (e.g. "Authorization: Bearer ..."), got a line without a header name`);
    out[name] = line.slice(at + 1).trim();
  }
  return out;
}

export async function addMcpServer(store: Store, o: { config: Config; secret: Buffer; server: NewMcpServer; now: number; by: AuditActor }) {
  const s = o.server;
  validateName(s.name);
  if (Object.hasOwn(o.config.mcp.servers, s.name)) throw new UsageError(`MCP server '${s.name}' is defined in the config file: change it there`);
  const headers = parseHeaders(s.headers);
  const checked = checkedServer({ url: s.url, headers, tools: s.tools, timeoutMs: s.timeoutMs, pricePerCall: s.pricePerCall });
  const record = {
    name: s.name,
    url: checked.url,
    headers: Object.keys(headers).length ? sealHeaders(o.secret, s.name, headers) : null,
    headerNames: Object.keys(headers),
    tools: checked.tools ?? null,
    timeoutMs: checked.timeoutMs ?? null,
    pricePerCall: checked.pricePerCall === undefined ? null : usdToNano(checked.pricePerCall),
    createdAt: o.now,
  };
  const before = (await store.mcpServers()).find((r) => r.name === s.name);
  const view = {
    url: shownUrl(record.url),
    header_names: record.headerNames,
    tools: record.tools,
    timeout_ms: record.timeoutMs,
    price_per_call: s.pricePerCall ?? null,
  };
  const note = auditNote(o.by, o.now, {
    action: before ? "mcp.server.update" : "mcp.server.add",
    account: null,
    target: s.name,
    before: before ? { url: shownUrl(before.url) } : null,
    after: view,
  });
  await store.audited(note).putMcpServer(before ? { ...record, createdAt: before.createdAt } : record);
  return { name: s.name, transport: "http" as const, ...view };
}

export async function removeMcpServer(store: Store, config: Config, name: string, now: number, by: AuditActor) {
  if (Object.hasOwn(config.mcp.servers, name)) throw new UsageError(`MCP server '${name}' is defined in the config file: remove it there`);
  const note = auditNote(by, now, { action: "mcp.server.remove", account: null, target: name, before: { name }, after: null });
  if (!(await store.audited(note).removeMcpServer(name)))
    throw notFound(name, [...(await store.mcpServers()).map((r) => r.name), ...Object.keys(config.mcp.servers)]);
  return { name, removed: true };
}

/** Each server as `serve` would see it now: connected, its tools counted, or why not. */
async function mcpServerStatus(store: Store, config: Config, secret: Buffer) {
  const pool = new McpPool({ config, store, secret, now: Date.now, warn: () => undefined });
  try {
    await pool.refresh();
    return await Promise.all(
      pool.list().map(async (s) => {
        const tools = await s.listTools().catch(() => null);
        return { server: s, tools };
      }),
    );
  } finally {
    await pool.close();
  }
}

export async function listMcpServers(store: Store, config: Config, secret: Buffer) {
  return (await mcpServerStatus(store, config, secret)).map(({ server, tools }) => ({
    name: server.spec.name,
    transport: server.spec.transport,
    origin: server.spec.origin,
    status: server.status,
    tools: tools?.length ?? null,
    last_error: server.lastError,
  }));
}

export async function listMcpTools(store: Store, config: Config, secret: Buffer, only?: string) {
  const all = await mcpServerStatus(store, config, secret);
  if (only && !all.some((s) => s.server.spec.name === only))
    throw notFound(
      only,
      all.map((s) => s.server.spec.name),
    );
  return all
    .filter((s) => !only || s.server.spec.name === only)
    .flatMap(({ server, tools }) => (tools ?? []).map((t) => ({ server: server.spec.name, name: t.name, description: t.description ?? "" })));
}

export function notFound(name: string, known: string[]): UsageError {
  const near = nearMiss(name, known);
  return new UsageError(`no MCP server '${name}'${near ? ` (did you mean '${near}'?)` : ""}${known.length ? `; known: ${known.join(", ")}` : ""}`);
}

/** The same rules as the config file's (config/mcp.ts); a problem is bad usage. */
function checkedServer(raw: Record<string, unknown>) {
  try {
    return validate(McpHttpServer, JSON.parse(JSON.stringify(raw)) as unknown);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function validateName(name: string): void {
  if (!McpServerName.safeParse(name).success)
    throw new UsageError(`MCP server name '${name}': use lower-case letters, digits and single hyphens (e.g. github, my-db)`);
}
