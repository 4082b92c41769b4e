/**
 * The deliverer (docs/alerts.md "Delivery"): every `pollMs` (or at once when the detector queued
 * one) it claims due deliveries from the store's outbox and POSTs each, signed, within
 * `timeoutMs`. A 2xx ends it `delivered`; anything else is retried `retryBaseMs` later, then
 * doubling, until 24 h after it was created, when it ends `failed`. Rows are in the store, so a
 * restart (or another process of the fleet) carries on where this one stopped.
 */
import type { ClaimedDelivery, DeliveryOutcome, Store } from "../store/index.js";
import { openWebhookSecret, signature } from "./secret.js";

/** How long after creation a delivery is retried (the spec's 24 h). */
const GIVE_UP_MS = 24 * 3_600_000;
/** Deliveries one poll takes at most. */
const BATCH = 20;
/** A claim outlives its attempt by this much, so a process that died mid-attempt frees it soon after. */
const LEASE_SLACK_MS = 5_000;

interface DelivererSettings {
  pollMs: number;
  retryBaseMs: number;
  timeoutMs: number;
}

export interface DelivererDeps {
  store: Store;
  /** The gateway's secret, which opens webhooks' signing secrets (src/alerts/secret.ts). */
  secret: Buffer;
  settings: DelivererSettings;
  now: () => number;
  warn: (line: string) => void;
}

/** After a failed attempt (the `attempts`th): the next one, or the end. */
function afterFailure(d: Pick<ClaimedDelivery, "attempts" | "createdAt">, lastStatus: number | null, now: number, retryBaseMs: number): DeliveryOutcome {
  const next = now + retryBaseMs * 2 ** Math.max(0, d.attempts - 1);
  if (next > d.createdAt + GIVE_UP_MS) return { status: "failed", lastStatus, nextAttemptAt: now, deliveredAt: null };
  return { status: "pending", lastStatus, nextAttemptAt: next, deliveredAt: null };
}

export class AlertDeliverer {
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly aborts = new AbortController();

  constructor(private deps: DelivererDeps) {}

  start(): void {
    this.schedule(this.deps.settings.pollMs);
  }

  /** A delivery was just queued: look now. */
  wake(): void {
    if (this.stopped) return;
    if (this.busy) this.again = true;
    else this.schedule(0);
  }

  /** Stops polling; an attempt in flight is cut and its claim lapses, so the next start retries it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.aborts.abort();
    await this.busy;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.busy) return;
    this.busy = this.poll().catch((err: Error) => this.deps.warn(`alerts: delivering failed: ${err.message}`));
    await this.busy;
    this.busy = undefined;
    if (this.stopped) return;
    const more = this.again;
    this.again = false;
    this.schedule(more ? 0 : this.deps.settings.pollMs);
  }

  private async poll(): Promise<void> {
    const { store, settings, now } = this.deps;
    for (;;) {
      const t = now();
      const due = await store.claimDeliveries(t, t + settings.timeoutMs + LEASE_SLACK_MS, BATCH);
      await Promise.all(due.map((d) => this.attempt(d)));
      if (due.length < BATCH || this.stopped) return;
    }
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const { store, settings, now } = this.deps;
    const secret = d.secret && openWebhookSecret(this.deps.secret, d.webhookId, d.secret);
    if (!secret) {
      // Removed webhook, or a secret the gateway's secret no longer opens: nothing can be signed.
      this.deps.warn(`alerts: delivery ${d.id} to ${d.url} cannot be signed (its webhook was removed or its secret cannot be read); marked failed`);
      return store.finishDelivery(d.id, { status: "failed", lastStatus: null, nextAttemptAt: now(), deliveredAt: null });
    }
    const status = await this.post(d, secret);
    if (this.stopped && status === null) return; // cut by the shutdown: the claim lapses and the next start retries
    const t = now();
    const outcome: DeliveryOutcome =
      status !== null && status >= 200 && status < 300
        ? { status: "delivered", lastStatus: status, nextAttemptAt: t, deliveredAt: t }
        : afterFailure(d, status, t, settings.retryBaseMs);
    await store.finishDelivery(d.id, outcome);
  }

  /** The receiver's status; null when it did not answer within the timeout (or refused). */
  private async post(d: ClaimedDelivery, secret: string): Promise<number | null> {
    try {
      const res = await fetch(d.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "llm-gateway-alerts", "x-gateway-signature": signature(secret, d.body) },
        body: d.body,
        redirect: "manual",
        signal: AbortSignal.any([AbortSignal.timeout(this.deps.settings.timeoutMs), this.aborts.signal]),
      });
      await res.body?.cancel().catch(() => undefined);
      return res.status;
    } catch {
      return null;
    }
  }
}
