/**
 * One JSON-RPC message posted to /mcp (docs/mcp.md, "Protocol"): `initialize` negotiates the
 * version and opens a session; `ping`, `tools/list` and `tools/call` need the session (where the
 * version has them) of the same key and endpoint; notifications and responses are accepted with
 * 202. Protocol errors are JSON-RPC errors; HTTP errors (401, 402, 429) stay HTTP errors.
 */
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { invalidRequest, GatewayError } from "../../core/errors.js";
import type { Gateway } from "../../gateway.js";
import type { Exchange } from "../../http/exchange.js";
import { callTool } from "./call.js";
import { listTools } from "./list.js";
import { INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, result, rpcError, type McpCall, type Reply } from "./reply.js";

/** Versions the gateway speaks, newest first; the newest one without sessions is stateless. */
const MCP_VERSIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] as const;
const SESSIONLESS = new Set<string>(["2026-07-28"]);
/** What a client that sends no MCP-Protocol-Version speaks (the transport's rule). */
const ASSUMED = "2025-03-26";

export async function answer(gw: Gateway, ex: Exchange, call: McpCall): Promise<void> {
  let msg: unknown;
  try {
    msg = JSON.parse(call.raw.toString("utf8"));
  } catch {
    return rpcError({ ex, id: null as unknown as string }, PARSE_ERROR, "Parse error: the body is not JSON.", 400);
  }
  if (Array.isArray(msg))
    return rpcError({ ex, id: null as unknown as string }, INVALID_REQUEST, "Batches are not supported: send one message per request.", 400);
  const kind = kindOf(msg);
  if (kind === "notification" || kind === "response") return accepted(ex);
  if (!kind) return rpcError({ ex, id: null as unknown as string }, INVALID_REQUEST, "Invalid JSON-RPC request.", 400);
  const req = msg as JSONRPCRequest;
  const reply: Reply = { ex, id: req.id };
  if (req.method === "initialize") return initialize(gw, reply, call, req);
  const version = sessionVersion(gw, ex, call);
  ex.state.headers["mcp-protocol-version"] = version;
  switch (req.method) {
    case "ping":
      return result(reply, {});
    case "tools/list":
      return listTools(gw, reply, call);
    case "tools/call":
      return callTool(gw, reply, call, req.params);
    default:
      return rpcError(reply, METHOD_NOT_FOUND, `Method not found: ${req.method}. This server offers tools (tools/list, tools/call).`);
  }
}

/**
 * What a JSON-RPC 2.0 message is, by its members (the spec's own test; the SDK's zod guards cost
 * four schema parses per message on the hot path, docs/mcp.md "Performance").
 */
function kindOf(msg: unknown): "request" | "notification" | "response" | undefined {
  if (msg === null || typeof msg !== "object") return undefined;
  const m = msg as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return undefined;
  const id = m.id;
  const hasId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
  if (typeof m.method === "string") {
    if (m.params !== undefined && (m.params === null || typeof m.params !== "object")) return undefined;
    return hasId ? "request" : "id" in m ? undefined : "notification";
  }
  return hasId && ("result" in m || "error" in m) ? "response" : undefined;
}

function initialize(gw: Gateway, reply: Reply, call: McpCall, msg: JSONRPCRequest): void {
  const asked = (msg.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  const version = (MCP_VERSIONS as readonly unknown[]).includes(asked) ? (asked as string) : MCP_VERSIONS[1];
  if (!SESSIONLESS.has(version)) {
    reply.ex.state.headers["mcp-session-id"] = gw.mcpSessions.mint({ keyId: call.key.id, scope: call.scope.server, version }, gw.now());
  }
  const name = call.scope.server ? `gateway/${call.scope.server}` : "gateway";
  result(reply, {
    protocolVersion: version,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name, version: "1.0.0" },
    instructions: call.scope.server
      ? `Tools of the MCP server '${call.scope.server}' through the gateway.`
      : "Tools of the gateway's MCP servers, named <server>__<tool>.",
  });
}

/**
 * The version of this request: its session's (which must be this key's, on this endpoint), or a
 * stateless version's. A missing session is a 400, one this gateway did not give this key a 404
 * (the client then initializes again, as the transport says).
 */
function sessionVersion(gw: Gateway, ex: Exchange, call: McpCall): string {
  const header = ex.header("mcp-protocol-version");
  const token = ex.header("mcp-session-id");
  if (header !== undefined && !(MCP_VERSIONS as readonly string[]).includes(header)) {
    throw invalidRequest(`MCP-Protocol-Version: ${header} is not supported (supported: ${MCP_VERSIONS.join(", ")}).`, "unsupported_protocol_version");
  }
  if (token === undefined) {
    if (header !== undefined && SESSIONLESS.has(header)) return header;
    throw invalidRequest("Mcp-Session-Id: Required (send initialize first, then the session id it answered with).", "session_required");
  }
  const session = gw.mcpSessions.open(token);
  if (!session || session.keyId !== call.key.id || session.scope !== call.scope.server) {
    throw new GatewayError(404, "not_found", "session_not_found", "Session not found: initialize a new session.");
  }
  return header ?? session.version ?? ASSUMED;
}

function accepted(ex: Exchange): void {
  ex.json(202, "");
}
