/**
 * Failover. Endpoints are tried BYOK-first, then healthy, then by observed latency (EWMA)
 * unless the model fixes the order; a retryable failure moves to the next endpoint at once.
 * When a whole round failed, rounds repeat with docs/http.md's backoff, never sooner than an
 * upstream Retry-After or an open circuit allows, all within one overall deadline, and stop
 * when the client leaves. A round throws RoundFailed to ask for another round; any other
 * error ends the request (docs/architecture.md, step 6).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Route, RoutedEndpoint } from "../catalog/catalog.js";
import type { Config } from "../config/config.js";
import { GatewayError, invalidRequest, upstreamInvalid, upstreamUnavailable } from "../core/errors.js";
import { backoffMs, clientClosed, RoundFailed, RoundTally } from "./failover-policy.js";
import type { Outcome } from "../plugin/failure.js";
import type { Health } from "./health.js";
import { ProviderNotices } from "./provider-notices.js";
import { failureReason } from "./failure-reason.js";
import { baseUrlHint } from "./base-url.js";
import { preferredOrder } from "./preferences.js";
import type { LimitResult, Limiter } from "../access/limits.js";
import type { Attempt } from "../store/index.js";
import { InvalidAnswer, UpstreamFailure } from "../plugin/failure.js";
import { AffinityPins, type AffinityTicket } from "./affinity.js";

export interface RouterDeps {
  health: Health;
  limiter: Limiter;
  limits: Config["limits"];
  retry: Config["retry"];
  now: () => number;
  /** Where a refused platform key is reported (default: stderr). */
  log?: (line: string) => void;
}

export interface RunOptions {
  byokOnly: boolean;
  /** The gateway key the request came from: whose failures these are (upstream/health.ts Blame). */
  keyId: string;
  signal: AbortSignal;
  requestId: string;
  attempts: Attempt[];
  /** Another model follows (docs/routing.md): one round, no backoff, then the next model's turn. */
  oneRound?: boolean;
  /** The request's conversation, when it has one (upstream/affinity.ts); its result is set once served. */
  affinity?: AffinityTicket | undefined;
}

interface RoundOptions extends RunOptions {
  /** This request's Retry-After per endpoint: not tried again before. */
  notBefore: Map<RoutedEndpoint, number>;
  /** Endpoints whose provider refused the platform key in this request: never tried again. */
  refused: Set<RoutedEndpoint>;
}

const isUnsupported = (err: unknown): err is GatewayError => err instanceof GatewayError && err.code === "unsupported_parameter";

export class Router {
  private notices: ProviderNotices;
  private pins = new AffinityPins();

  constructor(private deps: RouterDeps) {
    this.notices = new ProviderNotices(deps.log);
  }

  order(route: Route, byokOnly: boolean): RoutedEndpoint[] {
    const usable = byokOnly ? route.endpoints.filter((e) => e.byok) : route.endpoints;
    if (route.preferences) return preferredOrder(route.preferences, usable, this.deps.health);
    if (route.model.order === "fixed" || usable.length < 2) return usable;
    const { health } = this.deps;
    const now = this.deps.now();
    // An endpoint never measured ranks as fastest, so a new one gets tried and measured.
    const rank = (e: RoutedEndpoint) => [e.byok ? 0 : 1, health.ready(e.provider, e.model, now) ? 0 : 1, health.latency(e.provider, e.model) ?? 0] as const;
    // BYOK first (the account pays its provider), then healthy, then fastest; stable otherwise.
    return usable
      .map((e, i) => ({ e, i, r: rank(e) }))
      .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.r[2] - b.r[2] || a.i - b.i)
      .map((x) => x.e);
  }

  async run<T>(route: Route, opts: RunOptions, attempt: (e: RoutedEndpoint) => Promise<T>): Promise<{ value: T; endpoint: RoutedEndpoint }> {
    const { retry, now } = this.deps;
    const deadline = now() + retry.maxElapsedTime;
    const round: RoundOptions = { ...opts, notBefore: new Map(), refused: new Set() };
    const wait = async (error: RoundFailed, roundNumber: number) => {
      const ms = Math.max(backoffMs(retry, roundNumber), error.retryAfterMs ?? 0);
      if (now() + ms > deadline) throw error;
      await sleep(ms, undefined, { signal: opts.signal });
    };
    try {
      // A plain loop: the waits depend on each round's outcome (Retry-After, circuits), which a
      // retry library's fixed schedule cannot express. No abort signal is wired into a round:
      // an answer that arrived as the client left must still be returned (and its upstream
      // stream closed by the caller); rounds and waits check the signal themselves.
      for (let n = 1; ; n++) {
        try {
          return await this.round(route, round, attempt);
        } catch (err) {
          if (!(err instanceof RoundFailed) || opts.oneRound) throw err;
          await wait(err, n);
        }
      }
    } catch (err) {
      throw finalError(err, opts.signal);
    }
  }

  private async round<T>(route: Route, opts: RoundOptions, attempt: (e: RoutedEndpoint) => Promise<T>): Promise<{ value: T; endpoint: RoutedEndpoint }> {
    const tally = new RoundTally();
    for (const e of this.pins.first(this.order(route, opts.byokOnly), opts.affinity, (e) => this.ready(e), this.deps.now())) {
      if (opts.signal.aborted) throw clientClosed();
      if (!(await this.admit(e, opts, tally))) continue;
      tally.tried++;
      const started = this.deps.now();
      try {
        const value = await attempt(e);
        this.log(opts, e, "success", 200, started);
        this.pins.served(opts.affinity, e, this.deps.now());
        return { value, endpoint: e };
      } catch (err) {
        this.failed(err, e, opts, tally, started);
      }
    }
    throw tally.outcome();
  }

  /** Healthy now: a conversation may be kept on it (upstream/affinity.ts). */
  private ready(e: RoutedEndpoint): boolean {
    const t = this.deps.now();
    return this.deps.health.ready(e.provider, e.model, t) && (e.byok || !this.deps.health.misconfigured(e.provider, t));
  }

  /** May this endpoint be tried now? If not, the tally learns when it may. */
  private async admit(e: RoutedEndpoint, opts: RoundOptions, tally: RoundTally): Promise<boolean> {
    const { health, now } = this.deps;
    const t = now();
    // A refused platform key is the operator's to fix: skipped (no backoff) until a probe after the cooldown.
    if (!e.byok && (opts.refused.has(e) || health.misconfigured(e.provider, t))) return (tally.keyRefused(e.provider), false);
    const wait = Math.max(health.availableIn(e.provider, e.model, t), (opts.notBefore.get(e) ?? 0) - t);
    if (wait > 0) return (tally.later(wait), false);
    // After the circuit check, so an open circuit does not use up the provider's tier.
    const full = await this.providerFull(e.provider);
    if (full) return (tally.limitedBy(full), false);
    // Last, as it takes the half-open probe slot: another request may be probing.
    if (!health.admit(e.provider, e.model, t)) return (tally.later(0), false);
    return true;
  }

  /** A failed attempt either ends the request (client gone, our own error, the client's 400) or is noted. */
  private failed(err: unknown, e: RoutedEndpoint, opts: RoundOptions, tally: RoundTally, started: number): void {
    if (opts.signal.aborted || !(err instanceof UpstreamFailure)) {
      this.deps.health.release(e.provider, e.model);
      if (opts.signal.aborted) {
        this.log(opts, e, "cancelled", null, started);
        throw clientClosed();
      }
      // A parameter this provider cannot honour: another endpoint may; 400 only if none can.
      if (isUnsupported(err)) return tally.refusedParam(err);
      throw err instanceof Error ? err : new Error(String(err));
    }
    const outcome = err.retryable || err.outcome === "key_rejected" ? err.outcome : "rejected";
    // A 500 or an unusable answer may be this request's doing; the rest is the provider's.
    const suspect = err instanceof InvalidAnswer || err.upstreamStatus === 500;
    this.log(opts, e, outcome, err.upstreamStatus, started, err.retryAfterMs, suspect, failureReason(err));
    if (err instanceof InvalidAnswer) return this.unusable(e, err);
    if (err.outcome === "key_rejected" && !e.byok) {
      opts.refused.add(e);
      this.notices.rejected(e.provider, err.upstreamStatus, this.deps.now());
      return tally.keyRefused(e.provider);
    }
    if (!err.retryable) {
      if (err.upstreamStatus === 404) this.notices.notFound(e.provider, err.at, baseUrlHint(e.instance), this.deps.now());
      throw invalidRequest("The provider rejected the request as invalid for this model. Check the parameters.", "upstream_rejected");
    }
    if (err.outcome === "key_rejected" && e.byok) tally.byokRejected = true;
    else this.notices.failed(e.provider, failureReason(err), this.deps.now());
    if (err.retryAfterMs !== null) opts.notBefore.set(e, this.deps.now() + err.retryAfterMs);
    tally.later(err.retryAfterMs ?? 0);
  }

  /**
   * A 200 answer the gateway cannot use ends the request with 502 at once, on this endpoint and
   * every other: the provider answered (and may have billed it), and asking again would get the
   * same answer (docs/limits.md, "A complete answer"). Health counts it as a suspect failure.
   */
  private unusable(e: RoutedEndpoint, err: InvalidAnswer): never {
    this.notices.invalid(e.provider, err.cause, this.deps.now());
    throw upstreamInvalid();
  }

  /** A provider whose rate-limit tier is full is skipped; returns that tier, or null when it has room. */
  private async providerFull(provider: string): Promise<LimitResult | null> {
    const tier = this.deps.limits.providers[provider];
    if (!tier) return null;
    const r = await this.deps.limiter.take(`provider:${provider}`, tier.requests, tier.window * 1000, this.deps.now());
    return r.ok ? null : r;
  }

  private log(
    opts: RunOptions,
    e: RoutedEndpoint,
    outcome: Outcome | "cancelled",
    status: number | null,
    started: number,
    retryAfterMs: number | null = null,
    suspect = false,
    reason?: string,
  ): void {
    const t = this.deps.now();
    opts.attempts.push({
      requestId: opts.requestId,
      createdAt: started,
      provider: e.provider,
      model: e.model,
      outcome,
      httpStatus: status,
      latencyMs: t - started,
      ...(reason === undefined ? {} : { reason }),
    });
    if (outcome === "cancelled") return;
    if (reason !== undefined) this.deps.health.failedBecause(e.provider, reason, t);
    // An account's own key refused says nothing about the provider: health is shared by all.
    const seen = outcome === "key_rejected" && e.byok ? "rejected" : outcome;
    this.deps.health.record(e.provider, e.model, seen, t - started, t, retryAfterMs, { key: opts.keyId, suspect });
  }
}

function finalError(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return clientClosed();
  if (!(err instanceof RoundFailed)) return err;
  if (err.byokRejected) return invalidRequest("The provider rejected this account's BYOK key. Update it with 'gateway byok set'.", "byok_key_rejected");
  return upstreamUnavailable();
}
