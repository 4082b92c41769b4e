/**
 * An MCP server's headers (tokens, usually) as the store keeps them: JSON sealed with the gateway
 * secret (AES-256-GCM, access/byok.ts), bound to the server's name so a sealed value cannot be
 * moved to another server's row. Listed in store/sealed.ts, so `db copy` re-seals them and
 * `serve` and `doctor` say when the secret cannot open them (docs/mcp.md, "Credentials").
 */
import { decrypt, encrypt } from "../access/byok.js";
import { MCP_PURPOSE } from "../access/sealed.js";

export const sealHeaders = (secret: Buffer, server: string, headers: Record<string, string>): Buffer =>
  encrypt(secret, MCP_PURPOSE, server, JSON.stringify(headers));

/** The headers, or undefined when this secret did not seal them (the server is then `misconfigured`). */
export function openHeaders(secret: Buffer, server: string, sealed: Buffer): Record<string, string> | undefined {
  try {
    return JSON.parse(decrypt(secret, MCP_PURPOSE, server, sealed)) as Record<string, string>;
  } catch {
    return undefined;
  }
}
