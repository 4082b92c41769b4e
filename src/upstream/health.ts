/**
 * Passive health from live traffic: per endpoint a circuit breaker, a latency EWMA and a
 * hold from an upstream Retry-After; per provider success counts in 10 s buckets (5 min
 * kept; 429s excluded, as OpenRouter does, since a rate limit says nothing about whether
 * the provider works). A client error the upstream refused (`rejected`) is neutral too.
 */
import type { Outcome } from "../plugin/failure.js";

export type Circuit = "closed" | "open" | "half_open";

interface EndpointState {
  failures: number; // consecutive
  /** Keys whose requests failed in a way their content may cause (a 500, an unusable answer), this streak. */
  suspects: Set<string>;
  /** A failure in this streak that no request content causes (network, timeout, 502-504, 529). */
  infra: boolean;
  openedAt: number | null;
  probing: boolean;
  ewma: number | null;
  /** Not before this time (an upstream Retry-After, capped at the cooldown). */
  heldUntil: number;
}

interface ProviderState {
  buckets: Map<number, { ok: number; failed: number }>;
  ewma: number | null;
  keyRejectedAt: number | null;
  checkedAt: number | null;
  /** The latest failed attempt's reason (upstream/failure-reason.ts), for the health endpoint. */
  lastError: { reason: string; at: number } | null;
}

const BUCKET_MS = 10_000;
const KEEP_MS = 5 * 60_000;
const EWMA_ALPHA = 0.2;

export interface Blame {
  key: string;
  suspect: boolean;
}

export interface HealthOptions {
  failureThreshold: number;
  cooldown: number;
}

/** A circuit this process opened (`until`: when it half-opens) or closed (null): shared by src/fleet/circuits-redis.ts. */
export type CircuitListener = (change: { provider: string; model: string; until: number | null }) => void;

export class Health {
  private endpoints = new Map<string, EndpointState>();
  private providers = new Map<string, ProviderState>();
  private listener: CircuitListener | undefined;

  constructor(private options: HealthOptions) {}

  /** Told when this process opens or closes a circuit (not when a peer's notice is applied). */
  onCircuitChange(listener: CircuitListener | undefined): void {
    this.listener = listener;
  }

  /**
   * A circuit another gateway process opened (`until`: when it half-opens) or closed after a
   * successful probe (null), docs/fleet.md. An open one never shortens a later local opening.
   */
  applyPeerCircuit(provider: string, model: string, until: number | null): void {
    const e = this.endpoint(provider, model);
    if (until === null) {
      Object.assign(e, { failures: 0, infra: false, openedAt: null, heldUntil: 0 });
      e.suspects.clear();
      return;
    }
    const openedAt = until - this.options.cooldown;
    if (e.openedAt === null || openedAt > e.openedAt) e.openedAt = openedAt;
  }

  private endpoint(provider: string, model: string): EndpointState {
    const key = `${provider}\u0000${model}`;
    let e = this.endpoints.get(key);
    if (!e) this.endpoints.set(key, (e = { failures: 0, suspects: new Set(), infra: false, openedAt: null, probing: false, ewma: null, heldUntil: 0 }));
    return e;
  }

  private provider(id: string): ProviderState {
    let p = this.providers.get(id);
    if (!p) this.providers.set(id, (p = { buckets: new Map(), ewma: null, keyRejectedAt: null, checkedAt: null, lastError: null }));
    return p;
  }

  circuit(provider: string, model: string, now: number): Circuit {
    const e = this.endpoint(provider, model);
    if (e.openedAt === null) return "closed";
    return now - e.openedAt >= this.options.cooldown ? "half_open" : "open";
  }

  /** Milliseconds until this endpoint may be tried (open circuit, Retry-After hold); 0 = now. */
  availableIn(provider: string, model: string, now: number): number {
    const e = this.endpoint(provider, model);
    const reopens = e.openedAt === null ? 0 : e.openedAt + this.options.cooldown - now;
    return Math.max(0, reopens, e.heldUntil - now);
  }

  /** Closed, not held, last outcome not a failure: ranks ahead of endpoints that are not. */
  ready(provider: string, model: string, now: number): boolean {
    return this.endpoint(provider, model).failures === 0 && this.circuit(provider, model, now) === "closed" && this.availableIn(provider, model, now) === 0;
  }

  /**
   * May this endpoint be tried now? A half-open circuit lets exactly one probe through;
   * whoever is admitted must end with `record` or `release`, or the probe slot stays taken.
   */
  admit(provider: string, model: string, now: number): boolean {
    if (this.availableIn(provider, model, now) > 0) return false;
    const state = this.circuit(provider, model, now);
    if (state === "closed") return true;
    const e = this.endpoint(provider, model);
    if (e.probing) return false;
    e.probing = true;
    return true;
  }

  /** Ends an admitted attempt that says nothing about the endpoint (client gone, our own error). */
  release(provider: string, model: string): void {
    this.endpoint(provider, model).probing = false;
  }

  /**
   * The provider refused the gateway's own key within the cooldown: its platform endpoints
   * are skipped without a wait. After the cooldown one request probes it again (a half-open
   * circuit); a success clears it.
   */
  misconfigured(provider: string, now: number): boolean {
    const at = this.providers.get(provider)?.keyRejectedAt;
    return at !== null && at !== undefined && now - at < this.options.cooldown;
  }

  latency(provider: string, model: string): number | null {
    return this.endpoint(provider, model).ewma;
  }

  /**
   * `blame`: which gateway key the failed request came from, and whether its content could
   * have caused the failure. One tenant's requests alone never open a circuit for everyone
   * (docs/limits.md): failures that content may cause count toward opening only once they
   * come from two or more keys; infrastructure failures count whoever sent the request.
   */
  record(provider: string, model: string, outcome: Outcome, latencyMs: number, now: number, retryAfterMs: number | null = null, blame?: Blame): void {
    const e = this.endpoint(provider, model);
    const before = e.openedAt;
    this.count(e, provider, outcome, latencyMs, now, retryAfterMs, blame);
    if (this.listener && e.openedAt !== before) this.listener({ provider, model, until: e.openedAt === null ? null : e.openedAt + this.options.cooldown });
  }

  private count(e: EndpointState, provider: string, outcome: Outcome, latencyMs: number, now: number, retryAfterMs: number | null, blame?: Blame): void {
    const p = this.provider(provider);
    p.checkedAt = now;
    e.probing = false;
    // Other requests skip the endpoint for as long as the upstream asked (bounded by the cooldown).
    if (retryAfterMs !== null && outcome !== "success") e.heldUntil = now + Math.min(retryAfterMs, this.options.cooldown);
    if (outcome === "rate_limited" || outcome === "rejected") return;
    const bucket = Math.floor(now / BUCKET_MS);
    const counts = p.buckets.get(bucket) ?? { ok: 0, failed: 0 };
    p.buckets.set(bucket, counts);
    for (const b of p.buckets.keys()) if (b * BUCKET_MS < now - KEEP_MS) p.buckets.delete(b);
    if (outcome === "success") {
      counts.ok++;
      e.failures = 0;
      e.suspects.clear();
      e.infra = false;
      e.openedAt = null;
      e.heldUntil = 0;
      p.keyRejectedAt = null;
      e.ewma = e.ewma === null ? latencyMs : e.ewma + EWMA_ALPHA * (latencyMs - e.ewma);
      p.ewma = p.ewma === null ? latencyMs : p.ewma + EWMA_ALPHA * (latencyMs - p.ewma);
      return;
    }
    counts.failed++;
    if (outcome === "key_rejected") p.keyRejectedAt = now;
    e.failures++;
    if (blame?.suspect) e.suspects.add(blame.key);
    else e.infra = true;
    const widespread = e.infra || e.suspects.size >= 2;
    // A failed half-open probe re-opens at once; otherwise open after N in a row from more than one tenant.
    if (e.openedAt !== null || (e.failures >= this.options.failureThreshold && widespread) || outcome === "key_rejected") e.openedAt = now;
  }

  /** Why the provider's latest failed attempt failed: a word, never upstream text (docs/observability.md). */
  failedBecause(provider: string, reason: string, now: number): void {
    this.provider(provider).lastError = { reason, at: now };
  }

  snapshot(now: number, providerIds: string[]) {
    const providers = providerIds.map((id) => this.providerSnapshot(id, now));
    const down = providers.filter((p) => p.status === "down" || p.status === "misconfigured").length;
    const degraded = providers.filter((p) => p.status !== "healthy").length;
    const status = providers.length > 0 && down === providers.length ? "down" : degraded > 0 ? "degraded" : "ok";
    return { status, providers };
  }

  private providerSnapshot(id: string, now: number) {
    const p = this.provider(id);
    const rate = (windowMs: number) => {
      let ok = 0;
      let failed = 0;
      for (const [b, c] of p.buckets) if (b * BUCKET_MS >= now - windowMs) ((ok += c.ok), (failed += c.failed));
      return ok + failed === 0 ? null : Math.round((ok / (ok + failed)) * 1000) / 1000;
    };
    const circuits = [...this.endpoints.entries()]
      .filter(([key]) => key.startsWith(`${id}\u0000`))
      .map(([key]) => this.circuit(id, key.slice(id.length + 1), now));
    const circuit: Circuit = circuits.includes("open") ? "open" : circuits.includes("half_open") ? "half_open" : "closed";
    const rate1m = rate(60_000);
    // A refused platform key stays `misconfigured` until a request succeeds with it (docs/cli.md).
    const status =
      p.keyRejectedAt !== null
        ? "misconfigured"
        : circuits.length > 0 && circuits.every((c) => c !== "closed")
          ? "down"
          : circuit !== "closed" || (rate1m !== null && rate1m < 0.9)
            ? "degraded"
            : "healthy";
    return {
      id,
      status,
      latency_ms: p.ewma === null ? null : Math.round(p.ewma),
      success_rate: rate(KEEP_MS),
      success_rate_1m: rate1m,
      checked_at: p.checkedAt === null ? null : new Date(p.checkedAt).toISOString(),
      circuit,
      last_error: p.lastError && { reason: p.lastError.reason, at: new Date(p.lastError.at).toISOString() },
    };
  }
}
