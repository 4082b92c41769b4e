/**
 * A request counted against a rate-limit tier (access/limits.ts holds the windows): the key's,
 * the client IP's for a request without a valid key, or a model's. The answer's X-RateLimit-*
 * headers report the key or IP tier; a refusal is the 429 of the tier that refused. Used by
 * every surface: the model routes' pipeline, the small h3 routes and the dashboard API.
 */
import { rateLimited } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { LimitResult } from "../access/limits.js";
import type { RequestState } from "./request-state.js";

/** The metric's `tier` label for each limiter scope. */
const TIERS: Record<string, string> = { "API key": "key", "client IP": "ip", model: "model" };

function setLimitHeaders(state: RequestState, r: LimitResult): void {
  state.headers["x-ratelimit-limit"] = String(r.limit);
  state.headers["x-ratelimit-remaining"] = String(r.remaining);
  state.headers["x-ratelimit-reset"] = String(r.reset);
}

/** Counts against a tier; the headers report the key (or IP) tier, a 429 the tier that refused. */
export async function takeLimit(
  gw: Pick<Gateway, "limiter" | "now">,
  state: RequestState,
  scope: string,
  bucket: string,
  tier: { requests: number; window: number },
  report: boolean,
): Promise<void> {
  const r = await gw.limiter.take(bucket, tier.requests, tier.window * 1000, gw.now());
  if (report || !r.ok) setLimitHeaders(state, r);
  if (!r.ok) {
    state.rec.limitedTier = TIERS[scope] ?? scope;
    throw rateLimited(scope, r.reset);
  }
}

/** Limits a request that has no valid key by client IP (key guessing is throttled too). */
export function limitByIp(gw: Pick<Gateway, "limiter" | "now" | "config">, state: RequestState, ip: string): Promise<void> {
  return takeLimit(gw, state, "client IP", `ip:${ip}`, gw.config.limits.ip, true);
}
