/**
 * What a key may call (docs/mcp.md, "Grants"): deny by default, the intersection of the key's
 * grant (`keys create|update --mcp`), its account's narrowing (`mcp grant`; none set = every
 * server) and each server's own `tools`. tools/list, tools/call and the dashboard all ask this
 * one function, so they cannot disagree. A grant row names a server and a tool glob; it never
 * grants a whole server by accident (LiteLLM #33397): `github:search_*` is only those tools.
 */
import { UsageError } from "../core/errors.js";
import { MCP_SERVER_NAME } from "../config/mcp.js";
import type { McpAccountGrant } from "../store/index.js";
import { globMatches, anyGlob } from "./glob.js";

export interface GrantEntry {
  server: string;
  tools: string;
}

const TOOL_GLOB = /^[A-Za-z0-9_.*?/-]{1,128}$/;

/** `server` or `server:glob` (a bare server means all its tools); a bad entry is a usage error naming it. */
export function parseGrant(entry: string): GrantEntry {
  const at = entry.indexOf(":");
  const server = (at < 0 ? entry : entry.slice(0, at)).trim();
  const tools = at < 0 ? "*" : entry.slice(at + 1).trim();
  if (!MCP_SERVER_NAME.test(server) || !TOOL_GLOB.test(tools)) {
    throw new UsageError(`--mcp: "${entry}" is not <server>:<tool glob> (e.g. github:*, fs:read_*)`);
  }
  return { server, tools };
}

/** A `--mcp` value: comma-separated entries, each parsed; normalized as `server:glob`, duplicates dropped. */
export function parseGrantList(value: string): string[] {
  const entries = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseGrant);
  if (entries.length === 0) throw new UsageError("--mcp: expected <server>:<tool glob>[,...] (use --no-mcp for none)");
  return [...new Set(entries.map((e) => `${e.server}:${e.tools}`))];
}

export interface Access {
  /** Whether the key may call `tool` of `server` (its own name, not the prefixed one). */
  allows(server: string, tool: string): boolean;
  /** Servers some entry of the grant could reach, before tool names are known. */
  servers: ReadonlySet<string>;
}

/**
 * The access of a key: `keyGrant` its entries, `accountRows` its account's narrowing, `serverTools`
 * each configured server's own `tools` (undefined: not a configured server).
 */
export function resolveAccess(
  keyGrant: readonly string[] | null | undefined,
  accountRows: readonly McpAccountGrant[],
  serverTools: (server: string) => readonly string[] | null | undefined,
): Access {
  const key = (keyGrant ?? []).map(parseGrantLenient).filter((e): e is GrantEntry => e !== null);
  const narrowed = accountRows.length > 0;
  const configured = (server: string) => serverTools(server) !== undefined;
  const servers = new Set(key.filter((e) => configured(e.server) && (!narrowed || accountRows.some((r) => r.server === e.server))).map((e) => e.server));
  return {
    servers,
    allows(server, tool) {
      if (!servers.has(server)) return false;
      if (!key.some((e) => e.server === server && globMatches(e.tools, tool))) return false;
      if (narrowed && !accountRows.some((r) => r.server === server && globMatches(r.tools, tool))) return false;
      return anyGlob(serverTools(server), tool);
    },
  };
}

/** A stored entry that no longer parses grants nothing (deny by default), rather than failing every call. */
function parseGrantLenient(entry: string): GrantEntry | null {
  try {
    return parseGrant(entry);
  } catch {
    return null;
  }
}

/** Why a key resolved zero tools, for the log line that says so (docs/mcp.md): never silently empty (LiteLLM #32563). */
export function emptyReason(keyGrant: readonly string[] | null | undefined, access: Access, reachable: number): string {
  if (!keyGrant || keyGrant.length === 0) return "the key has no MCP grant (keys update --mcp)";
  if (access.servers.size === 0) return "the key's grant names no configured server its account may use";
  if (reachable === 0) return "no granted server answered";
  return "no tool of the granted servers matches the key's grant, its account's and the servers' own tools";
}
