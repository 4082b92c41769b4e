/**
 * GET /metrics (docs/observability.md): Prometheus text for a loopback client (unless
 * `metrics.loopback: false`), or for anyone presenting `Authorization: Bearer <metrics.token>`;
 * everyone else gets the 404 of an unknown route, so the endpoint is not advertised.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { routeNotFound } from "../core/errors.js";
import { bearerToken } from "../access/keys.js";
import type { Gateway } from "../gateway.js";

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (a dual-stack listener's form). */
export function isLoopback(ip: string): boolean {
  const v4 = ip.startsWith("::ffff:") ? ip.slice(7) : ip;
  return v4.startsWith("127.") || ip === "::1";
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** A constant-time comparison of the bearer token with the configured one. */
function tokenMatches(authorization: string | null, token: string | undefined): boolean {
  const sent = authorization ? bearerToken(authorization) : null;
  if (!token || sent === null) return false;
  return timingSafeEqual(digest(sent), digest(token));
}

function metricsAllowed(gw: Gateway, authorization: string | null, ip: string): boolean {
  const m = gw.config.metrics;
  return m.enabled && ((m.loopback && isLoopback(ip)) || tokenMatches(authorization, m.token));
}

export async function metricsReply(gw: Gateway, authorization: string | null, ip: string, path: string): Promise<Response> {
  const metrics = gw.obs.metrics;
  if (!metrics || !metricsAllowed(gw, authorization, ip)) throw routeNotFound(path);
  return new Response(await gw.obs.scrape(), { headers: { "content-type": metrics.contentType } });
}
