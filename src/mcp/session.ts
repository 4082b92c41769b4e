/**
 * MCP sessions (docs/mcp.md, "Sessions"): the `Mcp-Session-Id` the gateway gives at `initialize`
 * is a token it can check without remembering it, an HMAC over the key that opened it, the
 * endpoint (`/mcp` or one server's) and the protocol version, under a key derived from the
 * gateway secret. So any process of a fleet (same GATEWAY_SECRET) serves a session another
 * opened, an open session costs no memory, and a session is bound to its key: another key's
 * request with it is refused, and once the key is revoked every request is refused at auth.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export interface Session {
  keyId: string;
  /** "" for /mcp, else the server of /mcp/<server>. */
  scope: string;
  version: string;
}

const MAC_BYTES = 18;

export class SessionTokens {
  private readonly mac: Buffer;

  constructor(secret: Buffer) {
    this.mac = createHmac("sha256", secret).update("gateway mcp session v1").digest();
  }

  mint(s: Session, now: number): string {
    const body = Buffer.from(JSON.stringify([s.keyId, s.scope, s.version, now])).toString("base64url");
    return `${body}.${this.sign(body)}`;
  }

  /** The session a token stands for, or undefined when this gateway did not issue it (or it was altered). */
  open(token: string): Session | undefined {
    const dot = token.indexOf(".");
    if (dot < 1 || token.length > 512) return undefined;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), "base64url");
    const want = Buffer.from(this.sign(body), "base64url");
    if (given.length !== want.length || !timingSafeEqual(given, want)) return undefined;
    try {
      const [keyId, scope, version] = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as [string, string, string];
      return typeof keyId === "string" && typeof scope === "string" && typeof version === "string" ? { keyId, scope, version } : undefined;
    } catch {
      return undefined;
    }
  }

  private sign(body: string): string {
    return createHmac("sha256", this.mac).update(body).digest().subarray(0, MAC_BYTES).toString("base64url");
  }
}
