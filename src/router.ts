/**
 * Failover. Endpoints are tried healthy-first, by observed latency (EWMA) unless the model
 * fixes the order; a retryable failure moves to the next endpoint at once. When a whole
 * round failed, rounds repeat with api.md's backoff (p-retry), never shorter than an
 * upstream Retry-After, all within one overall deadline, and stop when the client leaves.
 */
import pRetry, { AbortError } from "p-retry";
import { setTimeout as sleep } from "node:timers/promises";
import type { Route, RoutedEndpoint } from "./catalog.js";
import type { Config } from "./config.js";
import { GatewayError, invalidRequest, rateLimited, upstreamUnavailable } from "./errors.js";
import type { Health } from "./health.js";
import type { Limiter } from "./limits.js";
import type { Attempt } from "./store/index.js";
import { UpstreamFailure } from "./upstream.js";

export interface RouterDeps {
  health: Health;
  limiter: Limiter;
  limits: Config["limits"];
  retry: Config["retry"];
  now: () => number;
}

/** A round in which every endpoint failed (or none could be tried). */
class RoundFailed extends Error {
  constructor(readonly retryAfterMs: number | null, readonly byokRejected: boolean) {
    super("every endpoint failed");
  }
}

const isUnsupported = (err: unknown): err is GatewayError => err instanceof GatewayError && err.code === "unsupported_parameter";

export class Router {
  constructor(private deps: RouterDeps) {}

  order(route: Route, byokOnly: boolean): RoutedEndpoint[] {
    const usable = byokOnly ? route.endpoints.filter((e) => e.byok) : route.endpoints;
    if (route.model.order === "fixed") return usable;
    const { health } = this.deps;
    const now = this.deps.now();
    const rank = (e: RoutedEndpoint) => {
      const open = health.circuit(e.provider, e.model, now) !== "closed" ? 1 : 0;
      return [e.byok ? 0 : 1, open, health.latency(e.provider, e.model) ?? 0] as const;
    };
    // BYOK first (the account pays its provider), then healthy, then fastest; stable otherwise.
    return usable
      .map((e, i) => ({ e, i, r: rank(e) }))
      .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.r[2] - b.r[2] || a.i - b.i)
      .map((x) => x.e);
  }

  async run<T>(
    route: Route,
    opts: { byokOnly: boolean; signal: AbortSignal; requestId: string; attempts: Attempt[] },
    attempt: (e: RoutedEndpoint) => Promise<T>,
  ): Promise<{ value: T; endpoint: RoutedEndpoint }> {
    const { retry, now } = this.deps;
    const deadline = now() + retry.maxElapsedTime;
    try {
      return await pRetry(() => this.round(route, opts, attempt), {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: 0,
        maxTimeout: 0,
        signal: opts.signal,
        shouldRetry: ({ error }) => error instanceof RoundFailed,
        onFailedAttempt: async ({ error, attemptNumber }) => {
          if (!(error instanceof RoundFailed)) return;
          const backoff = Math.min(retry.initialInterval * retry.exponent ** (attemptNumber - 1), retry.maxInterval);
          const wait = Math.max(backoff, error.retryAfterMs ?? 0);
          if (now() + wait > deadline) throw error;
          await sleep(wait, undefined, { signal: opts.signal });
        },
      });
    } catch (err) {
      throw this.finalError(err);
    }
  }

  private finalError(err: unknown): unknown {
    if (!(err instanceof RoundFailed)) return err;
    if (err.byokRejected) return invalidRequest("The provider rejected this account's BYOK key. Update it with 'gateway byok set'.", "byok_key_rejected");
    return upstreamUnavailable();
  }

  private async round<T>(
    route: Route,
    opts: { byokOnly: boolean; signal: AbortSignal; requestId: string; attempts: Attempt[] },
    attempt: (e: RoutedEndpoint) => Promise<T>,
  ): Promise<{ value: T; endpoint: RoutedEndpoint }> {
    const { health, now } = this.deps;
    let retryAfter: number | null = null;
    let limitedReset: number | null = null;
    let tried = 0;
    let byokRejected = false;
    let unsupportedError: GatewayError | undefined;
    let rejectedByCapability = 0;
    for (const e of this.order(route, opts.byokOnly)) {
      const reset = this.providerFull(e.provider);
      if (reset !== null) {
        limitedReset = limitedReset === null ? reset : Math.min(limitedReset, reset);
        continue;
      }
      if (!health.admit(e.provider, e.model, now())) continue;
      tried++;
      const started = now();
      try {
        const value = await attempt(e);
        this.log(opts, e, "success", 200, started);
        return { value, endpoint: e };
      } catch (err) {
        // A parameter this provider cannot honour: another endpoint may; 400 only if none can.
        if (isUnsupported(err) && !opts.signal.aborted) {
          unsupportedError ??= err;
          rejectedByCapability++;
          continue;
        }
        // Our own errors and client aborts end the request as they are.
        if (opts.signal.aborted || !(err instanceof UpstreamFailure)) throw new AbortError(err instanceof Error ? err : String(err));
        const failure = err;
        this.log(opts, e, failure.outcome, failure.upstreamStatus, started);
        if (!failure.retryable) throw new AbortError(invalidRequest("The provider rejected the request as invalid for this model. Check the parameters.", "upstream_rejected"));
        if (failure.outcome === "key_rejected" && e.byok) byokRejected = true;
        if (failure.retryAfterMs !== null) retryAfter = Math.min(retryAfter ?? Infinity, failure.retryAfterMs);
      }
    }
    // Every endpoint tried refused a parameter: that is the client's 400, not an outage.
    if (unsupportedError && tried === rejectedByCapability) throw new AbortError(unsupportedError);
    if (tried === 0 && limitedReset !== null) throw new AbortError(rateLimited("provider", limitedReset));
    throw new RoundFailed(retryAfter, byokRejected);
  }

  /** A provider whose rate-limit tier is full is skipped; returns its reset, or null when it has room. */
  private providerFull(provider: string): number | null {
    const tier = this.deps.limits.providers[provider];
    if (!tier) return null;
    const r = this.deps.limiter.take(`provider:${provider}`, tier.requests, tier.window * 1000, this.deps.now());
    return r.ok ? null : r.reset;
  }

  private log(opts: { requestId: string; attempts: Attempt[] }, e: RoutedEndpoint, outcome: string, status: number | null, started: number) {
    const t = this.deps.now();
    this.deps.health.record(e.provider, e.model, outcome === "success" ? "success" : (outcome as "failure"), t - started, t);
    opts.attempts.push({ requestId: opts.requestId, createdAt: started, provider: e.provider, model: e.model, outcome, httpStatus: status, latencyMs: t - started });
  }
}
