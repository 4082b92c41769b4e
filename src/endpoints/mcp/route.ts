/**
 * The gateway as an MCP server over Streamable HTTP (docs/mcp.md): `/mcp` (every server the key
 * may use, tools named `<server>__<tool>`) and `/mcp/<server>` (one server, its own names), on
 * node:http like the model routes. One POST carries one JSON-RPC message; the answer is JSON, or
 * SSE for a tool call that asked for progress. GET (a server-to-client stream) and DELETE (a
 * session's end) are 405 as the transport allows: sessions are tokens (mcp/session.ts), nothing
 * to end. `Origin`, when sent, must be this gateway's own (DNS rebinding).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { MCP_SERVER_NAME } from "../../config/mcp.js";
import { forbidden, GatewayError, methodNotAllowed, routeNotFound } from "../../core/errors.js";
import type { Gateway } from "../../gateway.js";
import { limitByIp } from "../../http/rate-limit.js";
import { Exchange } from "../../http/exchange.js";
import type { KeyRecord } from "../../store/index.js";
import type { Scope } from "./reply.js";
import { answer } from "./rpc.js";

const MCP_PATH = "/mcp";

/** Whether the URL is under /mcp (then this route answers it, a 404 for a server that does not exist included). */
export function isMcpUrl(url: string | undefined): boolean {
  if (url === undefined || !url.startsWith(MCP_PATH)) return false;
  const next = url.charCodeAt(MCP_PATH.length);
  return Number.isNaN(next) || next === 47 /* / */ || next === 63; /* ? */
}

/** `/mcp`, `/mcp/`, `/mcp/<server>` (a query ignored); anything else under /mcp is not this route. */
function mcpScope(url: string | undefined): Scope | undefined {
  const q = url?.indexOf("?") ?? -1;
  const path = q < 0 ? (url ?? "") : url!.slice(0, q);
  if (path === MCP_PATH || path === `${MCP_PATH}/`) return { server: "" };
  if (!path.startsWith(`${MCP_PATH}/`)) return undefined;
  const server = path.slice(MCP_PATH.length + 1).replace(/\/$/, "");
  return MCP_SERVER_NAME.test(server) ? { server } : undefined;
}

export function serveMcp(gw: Gateway, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const ex = new Exchange(req, res, gw.config.server.compat !== "strict", gw.config.server);
  gw.obs.begin(ex.state.rec, MCP_PATH, req);
  const done = handle(gw, ex, req).catch((err: unknown) => ex.fail(err));
  gw.pending.add(done);
  return done.finally(() => {
    gw.pending.delete(done);
    gw.obs.respond(ex.state.rec);
  });
}

async function handle(gw: Gateway, ex: Exchange, req: IncomingMessage): Promise<void> {
  const scope = mcpScope(req.url);
  if (!scope || (scope.server && !gw.mcp.get(scope.server))) {
    await limitByIp(gw, ex.state, ex.ip);
    throw routeNotFound(pathOf(req.url));
  }
  checkOrigin(gw, ex);
  if (req.method !== "POST") {
    await limitByIp(gw, ex.state, ex.ip);
    throw methodNotAllowed(req.method ?? "", pathOf(req.url), "POST");
  }
  const key = await authenticated(gw, ex);
  const raw = await ex.body(gw.config.server.maxBodyBytes);
  await answer(gw, ex, { key, scope, raw });
}

/**
 * The key as on /v1 (Bearer or x-api-key), without taking from its rate limit: only tool calls
 * count (docs/mcp.md, "Accounting"). A request without a valid key counts against its IP.
 */
async function authenticated(gw: Gateway, ex: Exchange): Promise<KeyRecord> {
  try {
    const key = await gw.auth.authenticate(ex.credential(), gw.now());
    ex.state.rec.keyId = key.id;
    ex.state.rec.account = key.account;
    return key;
  } catch (err) {
    if (err instanceof GatewayError) await limitByIp(gw, ex.state, ex.ip);
    throw err;
  }
}

/** A browser page of another site may not drive the gateway's tools through a user's loopback gateway. */
function checkOrigin(gw: Gateway, ex: Exchange): void {
  const origin = ex.header("origin");
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  const own = gw.config.dashboard.url ? new URL(gw.config.dashboard.url).host : undefined;
  if (host && (host === ex.header("host") || host === own)) return;
  throw forbidden("The Origin header names another site: MCP requests must come from a client, not a web page of another origin.", "origin_mismatch");
}

function pathOf(url: string | undefined): string {
  const q = url?.indexOf("?") ?? -1;
  return q < 0 ? (url ?? "") : url!.slice(0, q);
}
