/**
 * The upstream MCP servers as one list (docs/mcp.md): those of the config file (stdio ones only
 * there: programs the operator chose) and those added with `gateway mcp add`, whose sealed
 * headers are opened here. A name in both is the config's (`mcp add` refuses it).
 */
import type { Config } from "../config/config.js";
import type { McpServerConfig } from "../config/mcp.js";
import { usdToNano } from "../core/money.js";
import type { McpServerRecord, Store } from "../store/index.js";
import { openHeaders } from "./credentials.js";

/** A call's default cap when the server sets no `timeoutMs`. */
const DEFAULT_TIMEOUT_MS = 60_000;

export interface McpServerSpec {
  name: string;
  origin: "config" | "store";
  transport: "http" | "stdio";
  url?: string;
  headers?: Record<string, string>;
  command?: string[];
  env?: Record<string, string>;
  /** The server's own limit on what it exposes; null: everything it lists. */
  tools: string[] | null;
  timeoutMs: number;
  /** nano-USD per call. */
  pricePerCall: number;
  /** Why the server cannot be used as configured (its headers cannot be opened); never a value. */
  problem?: string;
}

function configServer(name: string, s: McpServerConfig): McpServerSpec {
  const common = {
    name,
    origin: "config" as const,
    tools: s.tools ?? null,
    timeoutMs: s.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    pricePerCall: usdToNano(s.pricePerCall ?? 0),
  };
  if (s.url !== undefined) return { ...common, transport: "http", url: s.url, headers: s.headers ?? {} };
  return { ...common, transport: "stdio", command: s.command ?? [], env: s.env ?? {} };
}

function storedServer(r: McpServerRecord, secret: Buffer): McpServerSpec {
  const headers = r.headers ? openHeaders(secret, r.name, r.headers) : {};
  return {
    name: r.name,
    origin: "store",
    transport: "http",
    url: r.url,
    headers: headers ?? {},
    tools: r.tools,
    timeoutMs: r.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    pricePerCall: r.pricePerCall ?? 0,
    ...(headers === undefined && { problem: "its stored headers cannot be decrypted with the current secret (add it again with 'gateway mcp add')" }),
  };
}

/** Every server, config first, by name. */
export async function readServers(config: Config, store: Store, secret: Buffer): Promise<McpServerSpec[]> {
  const fromConfig = Object.entries(config.mcp.servers).map(([name, s]) => configServer(name, s));
  const taken = new Set(fromConfig.map((s) => s.name));
  const stored = (await store.mcpServers()).filter((r) => !taken.has(r.name)).map((r) => storedServer(r, secret));
  return [...fromConfig, ...stored].sort((a, b) => a.name.localeCompare(b.name));
}

/** What identifies a connection: a change of any of it means a new one (headers included, never logged). */
export const connectionOf = (s: McpServerSpec): string => JSON.stringify([s.transport, s.url, s.headers, s.command, s.env]);
