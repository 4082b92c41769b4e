/**
 * Detection (docs/alerts.md): after a charged request settled, the budget levels it counted
 * against and its account's balance are read and every threshold reached becomes one outbox row
 * per webhook, unique per webhook and event key, so each crossing is delivered once per period
 * per threshold per webhook, whichever process saw it first. A request a budget refused is that
 * budget's 100 % event, whatever its spend (docs/alerts.md "A refusal is 100 %"). It runs after
 * the answer, off the request's path; its errors are logged, never thrown into a request.
 */
import { randomUUID } from "node:crypto";
import type { NewDelivery, Store, Webhook } from "../store/index.js";
import { alertBody, type AlertEvent } from "./body.js";
import { budgetLevels, type BudgetLevel } from "./levels.js";
import { crossedPercents, DEFAULT_PERCENTS, FULL_PERCENT } from "./thresholds.js";

export interface DetectorDeps {
  store: Store;
  now: () => number;
  /** A delivery was queued: the deliverer looks now rather than at its next poll. */
  wake: () => void;
  /** Where a failed check is said (the operator's log). */
  warn: (line: string) => void;
}

/**
 * The event of each threshold a level has reached, and of 100 % when a request was refused by it
 * (if the account alerts at 100 %: the spend's own crossing of it has the same key, so either is
 * delivered once); the key names the level, its period and the threshold.
 */
function thresholdEvents(l: BudgetLevel, percents: readonly number[], refused: boolean): AlertEvent[] {
  const who = l.level === "key" ? l.key : l.level === "member" ? l.member : l.account;
  const remaining = l.limit > l.spent ? l.limit - l.spent : 0n;
  const crossed = crossedPercents(l, percents);
  const byRefusal = refused && percents.includes(FULL_PERCENT) && !crossed.includes(FULL_PERCENT);
  return [...crossed, ...(byRefusal ? [FULL_PERCENT] : [])].map((p) => ({
    type: "budget.threshold",
    account: l.account,
    level: l.level,
    ...(l.member !== undefined && { member: l.member }),
    ...(l.key !== undefined && { key: l.key }),
    thresholdPercent: p,
    limit: l.limit,
    spent: l.spent,
    remaining,
    period: l.period,
    eventKey: `budget:${l.level}:${who}:${l.period}:${l.periodStart}:${p}`,
    ...(byRefusal && p === FULL_PERCENT && { reason: "refused" as const }),
  }));
}

/**
 * How long the webhook list is kept: a webhook added by any process or connection (the store's
 * change notice covers other processes; this, writes through this one) is seen within it.
 */
const WEBHOOKS_TTL_MS = 1_000;

export class AlertDetector {
  private webhooks: { list: Promise<Webhook[]>; at: number } | undefined;
  /** account + key of requests settled or refused and not yet checked, with the budget levels that refused: several become one check. */
  private queued = new Map<string, { account: string; keyId: string; refused: Set<BudgetLevel["level"]> }>();
  private running: Promise<void> | undefined;

  constructor(private deps: DetectorDeps) {}

  /** The store changed (a webhook or threshold added elsewhere): read them again. */
  invalidate(): void {
    this.webhooks = undefined;
  }

  /** A request of this key was charged: check later, never on the request's path. */
  settled(account: string, keyId: string): void {
    this.queue(account, keyId);
  }

  /** A request of this key was refused by its budget at `level` (a 402): that budget's 100 % event. */
  refused(account: string, keyId: string, level: BudgetLevel["level"]): void {
    this.queue(account, keyId).refused.add(level);
  }

  private queue(account: string, keyId: string): { refused: Set<BudgetLevel["level"]> } {
    const id = `${account}\u0000${keyId}`;
    let entry = this.queued.get(id);
    if (!entry) this.queued.set(id, (entry = { account, keyId, refused: new Set() }));
    this.running ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
    return entry;
  }

  /** Resolves when nothing is left to check (shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queued.size) {
        const batch = [...this.queued.values()];
        this.queued.clear();
        for (const { account, keyId, refused } of batch)
          await this.check(account, keyId, refused).catch((err: Error) =>
            this.deps.warn(`alerts: the check after a request of '${account}' failed: ${err.message}`),
          );
      }
    } finally {
      this.running = undefined;
    }
  }

  private async check(account: string, keyId: string, refused: ReadonlySet<BudgetLevel["level"]>): Promise<void> {
    const { store } = this.deps;
    const now = this.deps.now();
    if (!this.webhooks || now - this.webhooks.at >= WEBHOOKS_TTL_MS) this.webhooks = { list: store.listWebhooks(), at: now };
    const hooks = (await this.webhooks.list).filter((w) => w.account === null || w.account === account);
    if (hooks.length === 0) return; // no receiver: nothing to read
    const settings = await store.alertSettings(account);
    const percents = settings?.percents ?? DEFAULT_PERCENTS;
    const events = (await budgetLevels(store, keyId, now)).flatMap((l) => thresholdEvents(l, percents, refused.has(l.level)));
    if (settings?.lowBalance != null) {
      const low = await this.lowBalance(account, settings.lowBalance);
      if (low) events.push(low);
    }
    if (events.length === 0) return;
    const rows: NewDelivery[] = hooks.flatMap((w) =>
      events.map((e) => {
        const id = `alr_${randomUUID()}`;
        return { id, webhookId: w.id, eventKey: e.eventKey, url: w.url, account, type: e.type, body: alertBody(id, e, now), createdAt: now };
      }),
    );
    if ((await store.queueDeliveries(rows)) > 0) this.deps.wake();
  }

  /**
   * A balance below the account's amount. Its "period" is the time since the last credit grant or
   * adjustment: once per grant, so a top-up that still leaves it low alerts again (docs/alerts.md).
   */
  private async lowBalance(account: string, amount: bigint): Promise<AlertEvent | undefined> {
    const balance = await this.deps.store.balance(account);
    if (balance === undefined || balance >= amount) return undefined;
    const lastGrant = (await this.deps.store.creditHistory(account, 1))[0]?.createdAt ?? 0;
    return {
      type: "balance.low",
      account,
      level: "account",
      limit: amount,
      spent: null,
      remaining: balance,
      period: null,
      eventKey: `balance:${amount}:${lastGrant}`,
    };
  }
}
