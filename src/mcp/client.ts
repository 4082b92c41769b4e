/**
 * One upstream MCP server behind the gateway (docs/mcp.md, "Upstream servers"): a client of the
 * official SDK over Streamable HTTP or stdio, connected on first use and kept (one connection
 * for every session of every key), reconnected after it closes, with its tool list cached and
 * read again on `notifications/tools/list_changed` (or after `toolsTtlMs`). A failure is a
 * short description that never carries a header, token or URL.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ToolListChangedNotificationSchema, type CallToolResult, type Progress, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { describeFailure } from "./failure.js";
import type { McpServerSpec } from "./servers.js";

export type ServerStatus = "ok" | "down" | "misconfigured";

/** After a failed connection, calls fail at once for this long instead of each trying again. */
const RETRY_AFTER_MS = 500;
/** The longest a connection attempt (initialize included) may take. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (p: Progress) => void;
}

/** A call that never reached the server's tool, or whose server failed mid-call: the error result names the server. */
export class ServerUnavailable extends Error {}

export class UpstreamServer {
  status: ServerStatus = "down";
  lastError: string | null = null;
  checkedAt = 0;
  latencyMs: number | null = null;
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private tools: Tool[] | null = null;
  private toolsAt = 0;
  private failedAt = -Infinity;
  private closed = false;

  constructor(
    public spec: McpServerSpec,
    private readonly opts: { ttlMs: number; now: () => number },
  ) {
    if (spec.problem) [this.status, this.lastError] = ["misconfigured", spec.problem];
  }

  /** The same connection with new settings that do not touch it (tools, timeout, price). */
  withSpec(spec: McpServerSpec): this {
    this.spec = spec;
    return this;
  }

  /** The tools the server lists (all of them: grants and `tools` are applied by the caller). */
  async listTools(): Promise<Tool[]> {
    if (this.tools && this.opts.now() - this.toolsAt < this.opts.ttlMs && this.client) return this.tools;
    const client = await this.connect();
    try {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.spec.timeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      [this.tools, this.toolsAt] = [tools, this.opts.now()];
      return tools;
    } catch (err) {
      throw this.failed(err);
    }
  }

  /** The tool's result as the server gave it (isError included); ServerUnavailable when there is none. */
  async call(name: string, args: Record<string, unknown> | undefined, o: CallOptions = {}): Promise<CallToolResult> {
    const client = await this.connect();
    try {
      const options = { timeout: this.spec.timeoutMs, signal: o.signal, onprogress: o.onprogress, resetTimeoutOnProgress: false };
      // A plain request, not client.callTool: the result passes through as the server shaped it.
      return await client.request({ method: "tools/call", params: { name, arguments: args ?? {} } }, CallToolResultSchema, options);
    } catch (err) {
      if (o.signal?.aborted) throw new ServerUnavailable("cancelled by the client");
      throw this.failed(err);
    }
  }

  /** Connects (or reuses the connection), checking the server answers `initialize`. */
  connect(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.spec.problem) return Promise.reject(new ServerUnavailable(this.spec.problem));
    if (this.opts.now() - this.failedAt < RETRY_AFTER_MS) return Promise.reject(new ServerUnavailable(this.lastError ?? "unreachable"));
    return (this.connecting ??= this.open().finally(() => (this.connecting = null)));
  }

  private async open(): Promise<Client> {
    const started = this.opts.now();
    const client = new Client({ name: "gateway", version: "1.0.0" }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (this.tools = null));
    client.onclose = () => {
      if (this.client !== client) return;
      [this.client, this.tools, this.status] = [null, null, "down"];
      this.lastError ??= "closed the connection";
    };
    try {
      await client.connect(this.transport(), { timeout: Math.min(CONNECT_TIMEOUT_MS, this.spec.timeoutMs) });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw this.failed(err);
    }
    if (this.closed) {
      await client.close();
      throw new ServerUnavailable("closed");
    }
    [this.client, this.status, this.lastError, this.checkedAt, this.latencyMs] = [client, "ok", null, this.opts.now(), this.opts.now() - started];
    return client;
  }

  private transport(): Transport {
    const s = this.spec;
    if (s.transport === "stdio") {
      const [command, ...args] = s.command!;
      return new StdioClientTransport({ command: command!, args, env: { ...getDefaultEnvironment(), ...s.env }, stderr: "ignore" });
    }
    return new StreamableHTTPClientTransport(new URL(s.url!), { requestInit: { headers: s.headers } });
  }

  /** Marks the server down (a connection that failed is dropped and opened again on next use). */
  private failed(err: unknown): ServerUnavailable {
    const why = describeFailure(err, this.spec.timeoutMs);
    if (why.connection) {
      const client = this.client;
      [this.client, this.tools, this.status, this.failedAt] = [null, null, "down", this.opts.now()];
      void client?.close().catch(() => undefined);
    }
    this.lastError = why.text;
    this.checkedAt = this.opts.now();
    return new ServerUnavailable(why.text);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => null));
    this.client = null;
    await client?.close().catch(() => undefined);
  }
}
