/**
 * A real MCP server for the tests, written with the official SDK (McpServer over Streamable
 * HTTP on 127.0.0.1:0, one session per client as the SDK serves them): tools with arguments
 * (`echo`, `add`, `search_code`, `delete_repo`), a slow tool that reports progress and notices a
 * cancellation (`slow`), a tool that fails (`fail`), a server that dies mid-call (`die`, or
 * `kill()` from the test; `restart()` brings it back on the same port), and a tool list that
 * changes (`addTool`). It records what it was asked, never the gateway's key.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export interface FakeMcp {
  url: string;
  port: number;
  /** Tool calls received: name and arguments, and the headers of each HTTP request. */
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  headers: Array<Record<string, string | string[] | undefined>>;
  cancelled: number;
  addTool(name: string): void;
  kill(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

export async function startFakeMcp(o: { port?: number } = {}): Promise<FakeMcp> {
  const calls: FakeMcp["calls"] = [];
  const headers: FakeMcp["headers"] = [];
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  const extra: string[] = [];
  const sockets = new Set<Socket>();
  let port = o.port ?? 0;
  let http: Server;
  const state = { cancelled: 0 };

  const build = (): McpServer => {
    const server = new McpServer({ name: "fake", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    register(server, calls, state, () => destroyAll());
    for (const name of extra) server.registerTool(name, { description: `added ${name}` }, () => text(name));
    return server;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    headers.push(req.headers);
    const id = req.headers["mcp-session-id"] as string | undefined;
    let session = id ? sessions.get(id) : undefined;
    if (!session && req.method === "POST" && !id) {
      const server = build();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, { transport, server }),
      });
      await server.connect(transport);
      session = { transport, server };
    }
    if (!session) return void res.writeHead(404).end();
    await session.transport.handleRequest(req, res);
  };

  const listen = () =>
    new Promise<void>((resolve) => {
      http = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
      http.on("connection", (s) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
      http.listen(port, "127.0.0.1", () => {
        port = (http.address() as { port: number }).port;
        resolve();
      });
    });

  const destroyAll = () => {
    for (const s of sockets) s.destroy();
  };

  const stop = async () => {
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      destroyAll();
    });
    for (const s of sessions.values()) await s.server.close().catch(() => undefined);
    sessions.clear();
  };

  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${port}/mcp`;
    },
    get port() {
      return port;
    },
    calls,
    headers,
    get cancelled() {
      return state.cancelled;
    },
    addTool(name) {
      extra.push(name);
      for (const s of sessions.values()) s.server.registerTool(name, { description: `added ${name}` }, () => text(name));
    },
    kill: stop,
    restart: listen,
    close: stop,
  };
}

function register(server: McpServer, calls: FakeMcp["calls"], state: { cancelled: number }, die: () => void): RegisteredTool[] {
  const log = (name: string, args: Record<string, unknown>) => calls.push({ name, args });
  return [
    server.registerTool("echo", { description: "Echoes text", inputSchema: { text: z.string() } }, ({ text: t }) => (log("echo", { text: t }), text(t))),
    server.registerTool(
      "add",
      { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
      ({ a, b }) => (log("add", { a, b }), text(String(a + b))),
    ),
    server.registerTool(
      "search_code",
      { description: "Searches code", inputSchema: { q: z.string() } },
      ({ q }) => (log("search_code", { q }), text(`found ${q}`)),
    ),
    server.registerTool("delete_repo", { description: "Deletes a repository" }, () => (log("delete_repo", {}), text("deleted"))),
    server.registerTool("fail", { description: "Always fails" }, () => (log("fail", {}), { ...text("the tool failed on purpose"), isError: true })),
    server.registerTool("die", { description: "Kills the server mid-call" }, () => {
      log("die", {});
      setTimeout(die, 20);
      return new Promise(() => undefined);
    }),
    server.registerTool("slow", { description: "Waits ms, reporting progress", inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
      log("slow", { ms });
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= 2; i++) {
        if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: 2 } });
        await new Promise((resolve) => setTimeout(resolve, ms / 2));
        if (extra.signal.aborted) {
          state.cancelled++;
          return text("cancelled");
        }
      }
      return text(`slept ${ms}`);
    }),
  ];
}
