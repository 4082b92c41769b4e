/**
 * Talking to the gateway's /mcp as a client does: the official SDK's Client over Streamable HTTP
 * (what the agents use), or raw JSON-RPC posts for what a test must see on the wire (status,
 * headers, a forced call outside a grant).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export async function connectMcp(base: string, key: string, path = "/mcp"): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

export interface RawSession {
  post(body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** A request's JSON-RPC answer (result or error) with its HTTP status. */
  call(method: string, params?: unknown): Promise<{ status: number; body: { result?: any; error?: { code: number; message: string } } }>;
  sessionId: string | null;
}

let ids = 0;

export async function rawSession(base: string, key: string, path = "/mcp", version = "2025-06-18"): Promise<RawSession> {
  const headers = (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...extra,
  });
  const s: RawSession = {
    sessionId: null,
    post: (body, extra = {}) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: headers({ ...(s.sessionId && { "mcp-session-id": s.sessionId, "mcp-protocol-version": version }), ...extra }),
        body: JSON.stringify(body),
      }),
    async call(method, params) {
      const res = await s.post({ jsonrpc: "2.0", id: ++ids, method, ...(params !== undefined && { params }) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : {} };
    },
  };
  const init = await s.post({
    jsonrpc: "2.0",
    id: ++ids,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  if (init.status !== 200) throw new Error(`initialize answered ${init.status}: ${await init.text()}`);
  s.sessionId = init.headers.get("mcp-session-id");
  await init.text();
  await s.post({ jsonrpc: "2.0", method: "notifications/initialized" });
  return s;
}
