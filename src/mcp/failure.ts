/**
 * What went wrong with an upstream MCP server, in words that are safe to show a client, log and
 * put in `mcp list` (docs/mcp.md, "Failures"): a kind and a number at most, never the error's
 * own text, which may carry the server's URL (a token in its query) or a header.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export interface Failure {
  text: string;
  /** The connection is unusable (refused, closed, an HTTP error): drop it and reconnect on next use. */
  connection: boolean;
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: "refused the connection",
  ECONNRESET: "reset the connection",
  ENOTFOUND: "has a host name that does not resolve",
  EAI_AGAIN: "has a host name that does not resolve",
  ETIMEDOUT: "did not answer the connection",
  EHOSTUNREACH: "is unreachable",
  ENOENT: "command not found",
  EACCES: "command not executable",
};

export function describeFailure(err: unknown, timeoutMs: number): Failure {
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return { text: `timed out after ${timeoutMs} ms`, connection: false };
    if (err.code === ErrorCode.ConnectionClosed) return { text: "closed the connection", connection: true };
    // A JSON-RPC error the server answered: its code only (its message is the server's, and may echo input).
    return { text: `answered JSON-RPC error ${err.code}`, connection: false };
  }
  if (err instanceof StreamableHTTPError) return { text: err.code ? `answered HTTP ${err.code}` : "answered in an unexpected way", connection: true };
  const code = networkCode(err);
  if (code) return { text: NETWORK[code] ?? `failed (${code})`, connection: true };
  return { text: "failed (connection or protocol error)", connection: true };
}

/** The errno code of a network error, wherever fetch or spawn put it (err.code, err.cause.code). */
function networkCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
}
