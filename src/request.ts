/**
 * Per-request state shared by every route: the request id and the headers every response
 * must carry (X-Request-Id, X-RateLimit-*), plus the two tiers that apply before routing:
 * the key's window, or the client IP's when there is no valid key.
 */
import { randomUUID } from "node:crypto";
import type { H3Event } from "h3";
import { GatewayError, rateLimited } from "./errors.js";
import type { Gateway } from "./gateway.js";
import type { LimitResult } from "./limits.js";
import type { KeyRecord } from "./store/index.js";

export interface RequestState {
  id: string;
  headers: Record<string, string>;
}

export function startRequest(event: H3Event): RequestState {
  const state: RequestState = { id: `req_${randomUUID().replaceAll("-", "")}`, headers: {} };
  state.headers["x-request-id"] = state.id;
  event.context.gateway = state;
  return state;
}

export function stateOf(event: H3Event): RequestState {
  return (event.context.gateway as RequestState | undefined) ?? startRequest(event);
}

function setLimitHeaders(state: RequestState, r: LimitResult): void {
  state.headers["x-ratelimit-limit"] = String(r.limit);
  state.headers["x-ratelimit-remaining"] = String(r.remaining);
  state.headers["x-ratelimit-reset"] = String(r.reset);
}

/** Counts against a tier; the headers report the key (or IP) tier, a 429 the tier that refused. */
export function takeLimit(gw: Gateway, state: RequestState, scope: string, bucket: string, tier: { requests: number; window: number }, report: boolean): void {
  const r = gw.limiter.take(bucket, tier.requests, tier.window * 1000, gw.now());
  if (report || !r.ok) setLimitHeaders(state, r);
  if (!r.ok) throw rateLimited(scope, r.reset);
}

export function clientIp(event: H3Event): string {
  const node = (event.runtime as { node?: { req?: { socket?: { remoteAddress?: string } } } } | undefined)?.node;
  return node?.req?.socket?.remoteAddress ?? "unknown";
}

/** Limits a request that has no valid key by client IP (key guessing is throttled too). */
export function limitByIp(gw: Gateway, event: H3Event): void {
  takeLimit(gw, stateOf(event), "client IP", `ip:${clientIp(event)}`, gw.config.limits.ip, true);
}

/** Bearer auth, then the key's window (per-key `--rpm` overrides the config default). */
export function authenticate(gw: Gateway, event: H3Event): KeyRecord {
  const state = stateOf(event);
  let key: KeyRecord;
  try {
    key = gw.auth.authenticate(event.req.headers.get("authorization"), gw.now());
  } catch (err) {
    if (err instanceof GatewayError) limitByIp(gw, event);
    throw err;
  }
  const tier = key.rpm ? { requests: key.rpm, window: 60 } : gw.config.limits.key;
  takeLimit(gw, state, "API key", `key:${key.id}`, tier, true);
  return key;
}
