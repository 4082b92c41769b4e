/**
 * `tools/call` (docs/mcp.md, "Accounting" and "Failures"): refused before any upstream call with
 * a tool error result when the key has no grant for the tool (naming the tool only, never which
 * servers exist); then counted against the key's rate limit (429), its price held (402), called
 * on the server's pooled connection, settled with its ledger row, metrics and log line. A server
 * that is down or times out gives an error result naming the server, never a broken session.
 * Progress the server sends is passed on when the client asked for it (the answer is then SSE);
 * a client that hangs up cancels the upstream call.
 */
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import type { Gateway } from "../../gateway.js";
import { takeLimit } from "../../http/rate-limit.js";
import { CallBill } from "../../mcp/bill.js";
import { ServerUnavailable, type UpstreamServer } from "../../mcp/client.js";
import type { RequestRecord } from "../../observability/request-record.js";
import { INVALID_PARAMS, result, rpcError, SEPARATOR, type McpCall, type Reply } from "./reply.js";

interface Params {
  name?: unknown;
  arguments?: unknown;
  _meta?: { progressToken?: unknown };
}

const toolError = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

export async function callTool(gw: Gateway, reply: Reply, call: McpCall, params: unknown): Promise<void> {
  const p = (params ?? {}) as Params;
  if (typeof p.name !== "string" || (p.arguments !== undefined && (typeof p.arguments !== "object" || p.arguments === null || Array.isArray(p.arguments)))) {
    return rpcError(reply, INVALID_PARAMS, "tools/call: params.name (a string) is required and params.arguments must be an object.");
  }
  const rec = reply.ex.state.rec;
  const [serverName, tool] = call.scope.server ? [call.scope.server, p.name] : splitName(p.name);
  const server = serverName ? gw.mcp.get(serverName) : undefined;
  const access = await gw.mcp.access(call.key);
  if (!server || !tool || !access.allows(server.spec.name, tool)) {
    rec.mcp = { server: server ? server.spec.name : "-", tool: "-", outcome: "denied", ms: -1 };
    return result(reply, toolError(`The tool '${p.name}' may not be called: this API key has no grant for it.`));
  }
  rec.model = `${server.spec.name}/${tool}`;
  rec.provider = server.spec.name;
  const tier = call.key.rpm ? { requests: call.key.rpm, window: 60 } : gw.config.limits.key;
  await takeLimit(gw, reply.ex.state, "API key", `key:${call.key.id}`, tier, true);
  const bill = await CallBill.open(
    gw.store,
    call.key,
    { requestId: reply.ex.state.id, server: server.spec.name, tool, price: server.spec.pricePerCall },
    gw.now(),
  );
  const progress = progressOf(reply, p);
  const started = performance.now();
  const outcome = await invoke(server, tool, p.arguments as Record<string, unknown> | undefined, reply, progress);
  const ms = performance.now() - started;
  rec.waited(ms);
  rec.mcp = { server: server.spec.name, tool, outcome: outcome.label, ms };
  const body = `{"jsonrpc":"2.0","id":${JSON.stringify(reply.id)},"result":${JSON.stringify(outcome.answer)}}`;
  await settle(gw, bill, server, { status: outcome.status, bytesIn: call.raw.length, bytesOut: Buffer.byteLength(body), rec });
  if (bill.charged > 0) reply.ex.state.headers["x-gateway-cost"] = String(bill.charged);
  if (progress && reply.ex.started) return reply.ex.end(`event: message\ndata: ${body}\n\n`);
  reply.ex.json(200, body);
}

interface Outcome {
  answer: CallToolResult;
  status: "ok" | "error" | "cancelled";
  /** The metric's outcome: ok, tool_error (the tool ran and said it failed), error, cancelled. */
  label: string;
}

/** The server's answer, or the error result that names the server when it gave none. */
async function invoke(
  server: UpstreamServer,
  tool: string,
  args: Record<string, unknown> | undefined,
  reply: Reply,
  onprogress: ((p: Progress) => void) | undefined,
): Promise<Outcome> {
  try {
    const answer = await server.call(tool, args, { signal: reply.ex.signal, onprogress });
    return { answer, status: "ok", label: answer.isError ? "tool_error" : "ok" };
  } catch (err) {
    const cancelled = reply.ex.signal.aborted;
    const why = err instanceof ServerUnavailable ? err.message : "failed";
    return {
      answer: toolError(`The MCP server '${server.spec.name}' ${why}.`),
      status: cancelled ? "cancelled" : "error",
      label: cancelled ? "cancelled" : "error",
    };
  }
}

/** `<server>__<tool>` split at the first separator; [] when there is none. */
function splitName(name: string): [string, string] | [] {
  const at = name.indexOf(SEPARATOR);
  return at > 0 ? [name.slice(0, at), name.slice(at + SEPARATOR.length)] : [];
}

/** The ledger row (the request's record told its charge, so the log line has it); a failed write is the request's 500. */
async function settle(
  gw: Gateway,
  bill: CallBill,
  server: UpstreamServer,
  o: { status: Outcome["status"]; bytesIn: number; bytesOut: number; rec: RequestRecord },
): Promise<void> {
  o.rec.billed = true;
  await bill.settle({ status: o.status, bytesIn: o.bytesIn, bytesOut: o.bytesOut }, gw.now());
  o.rec.settle({
    provider: server.spec.name,
    prompt: 0,
    completion: 0,
    cost: bill.charged,
    usageSource: "none",
    outcome: o.status,
    attempts: [],
  });
}

/**
 * When the client gave a progressToken and takes SSE, the server's progress is sent on as
 * `notifications/progress` with the client's token, and the answer follows on the same stream.
 */
function progressOf(reply: Reply, p: Params): ((progress: Progress) => void) | undefined {
  const token = p._meta?.progressToken;
  if ((typeof token !== "string" && typeof token !== "number") || !(reply.ex.header("accept") ?? "").includes("text/event-stream")) return undefined;
  return (progress) => {
    if (!reply.ex.started) reply.ex.startSse();
    const note = { jsonrpc: "2.0", method: "notifications/progress", params: { ...progress, progressToken: token } };
    void reply.ex.write(`event: message\ndata: ${JSON.stringify(note)}\n\n`);
  };
}
