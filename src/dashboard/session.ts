/**
 * Dashboard sessions (docs/dashboard.md): a random token in an HttpOnly, SameSite=Strict cookie
 * (Secure over HTTPS), its SHA-256 in the store. Signing out deletes the row, so a copied
 * cookie is dead too.
 */
import { randomBytes } from "node:crypto";
import { getCookie, type H3Event } from "h3";
import { signInRequired } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { hashToken } from "../operations/sign-in-link.js";
import type { DashboardUser } from "../store/index.js";
import { isSecure } from "./http.js";

const COOKIE = "gateway_session";
const SESSION_TTL_MS = 7 * 86_400_000;

function cookie(value: string, maxAgeS: number, secure: boolean): string {
  return `${COOKIE}=${value}; Path=/dashboard; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** Starts a session for `email`; returns the Set-Cookie header value. */
export async function startSession(gw: Gateway, event: H3Event, email: string): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const now = gw.now();
  await gw.store.createSession({ hash: hashToken(token), email, createdAt: now, expiresAt: now + SESSION_TTL_MS });
  return cookie(token, SESSION_TTL_MS / 1000, isSecure(event, gw.config.server));
}

/** The signed-in user, or a 401. */
export async function currentUser(gw: Gateway, event: H3Event): Promise<DashboardUser> {
  const token = getCookie(event, COOKIE);
  const user = token ? await gw.store.findSession(hashToken(token), gw.now()) : undefined;
  if (!user || user.passwordHash === null) throw signInRequired();
  return user;
}

/** Deletes the session server-side; returns the Set-Cookie header that clears it in the browser. */
export async function endSession(gw: Gateway, event: H3Event): Promise<string> {
  const token = getCookie(event, COOKIE);
  if (token) await gw.store.deleteSession(hashToken(token));
  return cookie("", 0, isSecure(event, gw.config.server));
}
