/**
 * Dashboard sessions (docs/dashboard.md): a random token in an HttpOnly, SameSite=Strict cookie
 * (Secure over HTTPS), its SHA-256 in the store. Signing out deletes the row, so a copied
 * cookie is dead too. A session ends 7 days after sign-in, or earlier when unused for
 * `dashboard.sessionIdle` (default 12 h).
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

/** A session's use is written at most once a minute (or a quarter of `dashboard.sessionIdle`, when shorter). */
const SEEN_EVERY_MS = 60_000;

/**
 * The signed-in user, or a 401: the session must be under its 7 days and used within
 * `dashboard.sessionIdle`. A user without a password is one single sign-on provisioned.
 */
export async function currentUser(gw: Gateway, event: H3Event): Promise<DashboardUser> {
  const token = getCookie(event, COOKIE);
  const now = gw.now();
  const idle = gw.config.dashboard.sessionIdle;
  const user = token ? await gw.store.useSession(hashToken(token), now, now - idle, Math.min(SEEN_EVERY_MS, Math.floor(idle / 4))) : undefined;
  if (!user) throw signInRequired();
  return user;
}

/** Deletes the session server-side; returns the Set-Cookie header that clears it in the browser. */
export async function endSession(gw: Gateway, event: H3Event): Promise<string> {
  const token = getCookie(event, COOKIE);
  if (token) await gw.store.deleteSession(hashToken(token));
  return cookie("", 0, isSecure(event, gw.config.server));
}
