/**
 * Alerts (docs/alerts.md): the webhooks that receive them, each account's thresholds, and the
 * durable outbox of deliveries. A delivery is unique per webhook and event key, so "once per
 * period per threshold per webhook" holds even with several processes on one database.
 */

/** What an alert is about: a budget's threshold crossed, or a balance below its amount. */
export type AlertType = "budget.threshold" | "balance.low";
type DeliveryStatus = "pending" | "delivered" | "failed";

export interface Webhook {
  id: string;
  /** null: every account's alerts (an operator's receiver). */
  account: string | null;
  url: string;
  /** The signing secret, sealed with the gateway's secret (src/alerts/secret.ts); never in clear. */
  secret: Buffer;
  createdAt: number;
}

export interface AlertSettings {
  account: string;
  /** Percentages of a budget that alert when reached, ascending (default 50, 80, 100). */
  percents: number[];
  /** nano-USD: a balance below it alerts; null: no low-balance alert. */
  lowBalance: bigint | null;
  updatedAt: number;
}

/** A delivery as the detector queues it: the body is final, so every attempt sends the same bytes. */
export interface NewDelivery {
  id: string;
  webhookId: string;
  /** What makes it once only, with the webhook: the threshold, its level and its period (src/alerts/detect.ts). */
  eventKey: string;
  url: string;
  account: string;
  type: AlertType;
  body: string;
  createdAt: number;
}

export interface Delivery {
  id: string;
  webhookId: string;
  url: string;
  account: string;
  type: AlertType;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  /** The receiver's HTTP status of the last attempt; null: none yet, or no answer (timeout, refused). */
  lastStatus: number | null;
  nextAttemptAt: number;
  createdAt: number;
  deliveredAt: number | null;
}

/** A claimed delivery, with its webhook's sealed secret (null: the webhook was removed). */
export interface ClaimedDelivery extends Delivery {
  secret: Buffer | null;
}

export interface DeliveryOutcome {
  status: DeliveryStatus;
  lastStatus: number | null;
  /** When a pending delivery is next due. */
  nextAttemptAt: number;
  deliveredAt: number | null;
}

export interface AlertStore {
  addWebhook(w: Webhook): Promise<void>;
  /** Every webhook, oldest first (a small table, cached by the detector until the store changes). */
  listWebhooks(): Promise<Webhook[]>;
  /** Removes a webhook; its pending deliveries end `failed`. False when there is none with that id. */
  removeWebhook(id: string, at: number): Promise<boolean>;
  /** An account's thresholds; undefined when never set (the defaults apply). */
  alertSettings(account: string): Promise<AlertSettings | undefined>;
  setAlertSettings(s: AlertSettings): Promise<void>;
  /** Inserts each delivery unless its webhook already has one with its event key; returns how many were new. */
  queueDeliveries(rows: NewDelivery[]): Promise<number>;
  /**
   * Takes up to `limit` pending deliveries due at `now`, counts an attempt on each and moves
   * its next_attempt_at to `leaseUntil`: no other process takes it before then (PostgreSQL:
   * FOR UPDATE SKIP LOCKED), and one whose process died is taken again after it.
   */
  claimDeliveries(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]>;
  finishDelivery(id: string, outcome: DeliveryOutcome): Promise<void>;
  /** Newest first; only one account's when given. */
  listDeliveries(opts: { account?: string; limit: number }): Promise<Delivery[]>;
}
