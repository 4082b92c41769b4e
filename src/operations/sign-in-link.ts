/**
 * One-time sign-in links for dashboard users (docs/dashboard.md): a random token, valid 24 h,
 * stored as its SHA-256 only. The token travels in the URL's fragment, which browsers never
 * send to a server, so it stays out of access logs and Referer headers.
 */
import { createHash, randomBytes } from "node:crypto";
import type { AuditNote, Store } from "../store/index.js";

const LINK_TTL_MS = 24 * 3_600_000;

export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");

/**
 * A fresh link for `email`, replacing any earlier one. `vouchedBy`: who hands it to the person
 * (null: the operator or an instance administrator; else the inviting account, docs/dashboard.md
 * "Invitations"). `baseUrl`: where the dashboard is served (`http://host:port`). `audit`: the
 * record of a reset (docs/audit.md), in the link's transaction.
 */
export async function issueSignInLink(
  store: Store,
  email: string,
  vouchedBy: string | null,
  baseUrl: string,
  now: number,
  audit?: (expiresAt: number) => AuditNote,
) {
  const token = randomBytes(32).toString("base64url");
  await (audit ? store.audited(audit(now + LINK_TTL_MS)) : store).createSignInLink(hashToken(token), email, now + LINK_TTL_MS, vouchedBy);
  return { link: `${baseUrl.replace(/\/+$/, "")}/dashboard/#/set-password?token=${token}`, expires_at: new Date(now + LINK_TTL_MS).toISOString() };
}
