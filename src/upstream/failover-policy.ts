/**
 * The bookkeeping of one failover round, apart from the loop that drives it: how many
 * endpoints were tried, why the others were skipped and when they may be tried again, and
 * what a round with no answer ends in (a wait before the next round, a 429 when every
 * provider tier was full, a 400 when no endpoint could honour a parameter).
 */
import type { Config } from "../config/config.js";
import { GatewayError, rateLimited, upstreamAuthFailed } from "../core/errors.js";
import type { LimitResult } from "../access/limits.js";

/** A round in which every endpoint failed (or none could be tried). */
export class RoundFailed extends Error {
  constructor(
    /** The soonest any endpoint may be tried again (Retry-After, cooldown, tier reset); null: unknown. */
    readonly retryAfterMs: number | null,
    readonly byokRejected: boolean,
  ) {
    super("every endpoint failed");
  }
}

/** docs/limits.md: the wait before round n+1 is initialInterval × exponent^(n-1), capped by maxInterval. */
export function backoffMs(retry: Config["retry"], round: number): number {
  return Math.min(retry.initialInterval * retry.exponent ** (round - 1), retry.maxInterval);
}

export class RoundTally {
  tried = 0;
  byokRejected = false;
  /** Providers whose platform key was refused (now or recently): skipped, never retried. */
  private authFailed = new Set<string>();
  private unsupported: GatewayError | undefined;
  private refusedParameter = 0;
  private limited: LimitResult | null = null;
  private waitMs: number | null = null;

  /** An endpoint that failed or was skipped and may be tried again in `ms` (0: at once). */
  later(ms: number): void {
    this.waitMs = Math.min(this.waitMs ?? Number.POSITIVE_INFINITY, Math.max(0, ms));
  }

  /** An endpoint whose provider tier is full. */
  limitedBy(r: LimitResult): void {
    if (!this.limited || r.reset < this.limited.reset) this.limited = r;
    this.later(r.reset * 1000);
  }

  /** An endpoint whose provider refused the gateway's key: not retried in this request (docs/cli.md). */
  keyRefused(provider: string): void {
    this.authFailed.add(provider);
  }

  /** An endpoint whose provider cannot honour a parameter; another may. */
  refusedParam(err: GatewayError): void {
    this.unsupported ??= err;
    this.refusedParameter++;
  }

  /** What a round in which no endpoint answered ends with: RoundFailed asks for another round, any other error is final. */
  outcome(): Error {
    // Every endpoint tried refused a parameter: that is the client's 400, not an outage.
    if (this.unsupported && this.tried === this.refusedParameter) return this.unsupported;
    if (this.tried === 0 && this.limited) return providerLimited(this.limited);
    // Nothing left that a later round could try: every endpoint was a refused platform key.
    if (this.waitMs === null && this.authFailed.size > 0) return upstreamAuthFailed([...this.authFailed]);
    return new RoundFailed(this.waitMs, this.byokRejected);
  }
}

/** 429 from the provider tier; its headers report that tier, the one that refused (docs/limits.md). */
function providerLimited(r: LimitResult): GatewayError {
  const err = rateLimited("provider", r.reset);
  Object.assign(err.headers, {
    "x-ratelimit-limit": String(r.limit),
    "x-ratelimit-remaining": String(r.remaining),
    "x-ratelimit-reset": String(r.reset),
  });
  return err;
}

/**
 * The client went away. Nobody reads the answer; a GatewayError (nginx's 499) keeps it out
 * of the internal-error log and gives the ledger row a status.
 */
export const clientClosed = () =>
  new GatewayError(499, "invalid_request_error", "client_closed_request", "The client closed the request before it was answered.");
