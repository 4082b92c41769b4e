/**
 * What the /mcp handlers share (docs/mcp.md, "Protocol"): the request as they get it, and the
 * JSON-RPC answer written in one piece (a result, or an error object with its code).
 */
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Exchange } from "../../http/exchange.js";
import type { KeyRecord } from "../../store/index.js";

/** The separator of `<server>__<tool>` on /mcp (server names cannot contain it: config/mcp.ts). */
export const SEPARATOR = "__";

export interface Scope {
  /** "" for /mcp, else the one server of /mcp/<server>. */
  server: string;
}

export interface McpCall {
  key: KeyRecord;
  scope: Scope;
  raw: Buffer;
}

export interface Reply {
  ex: Exchange;
  id: JSONRPCRequest["id"];
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;

export function result(r: Reply, value: unknown): void {
  r.ex.json(200, `{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":${JSON.stringify(value)}}`);
}

export function rpcError(r: Reply, code: number, message: string, status = 200): void {
  r.ex.json(status, JSON.stringify({ jsonrpc: "2.0", id: r.id, error: { code, message } }));
}
