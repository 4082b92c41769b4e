/**
 * Per-request state shared by every route: the request id and the headers every response
 * must carry (X-Request-Id, X-RateLimit-*), plus the two tiers that apply before routing:
 * the key's window, or the client IP's when there is no valid key. Server-agnostic: the h3
 * routes and the plain node:http chat route both call these.
 */
import { randomUUID } from "node:crypto";
import { GatewayError, rateLimited } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { LimitResult } from "../access/limits.js";
import { RequestRecord } from "../observability/request-record.js";
import type { KeyRecord } from "../store/index.js";

export interface RequestState {
  id: string;
  headers: Record<string, string>;
  /** What the request did, for its metrics and log line (observability/observer.ts). */
  rec: RequestRecord;
}

export function startRequest(): RequestState {
  const id = `req_${randomUUID().replaceAll("-", "")}`;
  return { id, headers: { "x-request-id": id }, rec: new RequestRecord(id) };
}

/** The metric's `tier` label for each limiter scope. */
const TIERS: Record<string, string> = { "API key": "key", "client IP": "ip", model: "model" };

function setLimitHeaders(state: RequestState, r: LimitResult): void {
  state.headers["x-ratelimit-limit"] = String(r.limit);
  state.headers["x-ratelimit-remaining"] = String(r.remaining);
  state.headers["x-ratelimit-reset"] = String(r.reset);
}

/** Counts against a tier; the headers report the key (or IP) tier, a 429 the tier that refused. */
export async function takeLimit(
  gw: Gateway,
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
export function limitByIp(gw: Gateway, state: RequestState, ip: string): Promise<void> {
  return takeLimit(gw, state, "client IP", `ip:${ip}`, gw.config.limits.ip, true);
}

/** Bearer auth, then the key's window (per-key `--rpm` overrides the config default). */
export async function authenticate(gw: Gateway, state: RequestState, authorization: string | null | undefined, ip: string): Promise<KeyRecord> {
  let key: KeyRecord;
  try {
    key = await gw.auth.authenticate(authorization, gw.now());
  } catch (err) {
    if (err instanceof GatewayError) await limitByIp(gw, state, ip);
    throw err;
  }
  state.rec.keyId = key.id;
  state.rec.account = key.account;
  const tier = key.rpm ? { requests: key.rpm, window: 60 } : gw.config.limits.key;
  await takeLimit(gw, state, "API key", `key:${key.id}`, tier, true);
  return key;
}
