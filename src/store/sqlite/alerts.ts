/** Alerts on SQLite (src/store/alerts.ts): webhooks, thresholds and the delivery outbox. One process owns the file, so a claim is one UPDATE … RETURNING. */
import type Database from "better-sqlite3";
import type { AlertSettings, ClaimedDelivery, Delivery, DeliveryOutcome, NewDelivery, Webhook } from "../alerts.js";
import { writeTransaction } from "./tx.js";

const DELIVERY_COLUMNS = `d.id, d.webhook_id AS webhookId, d.url, d.account, d.type, d.body, d.status, d.attempts,
  d.last_status AS lastStatus, d.next_attempt_at AS nextAttemptAt, d.created_at AS createdAt, d.delivered_at AS deliveredAt`;

interface SettingsRow {
  account: string;
  percents: string;
  low_balance: bigint | null;
  updated_at: bigint;
}

const toSettings = (r: SettingsRow): AlertSettings => ({
  account: r.account,
  percents: r.percents.split(",").map(Number),
  lowBalance: r.low_balance,
  updatedAt: Number(r.updated_at),
});

export function sqliteAlerts(db: Database.Database) {
  const s = {
    addWebhook: db.prepare("INSERT INTO alert_webhooks (id, account, url, secret, created_at) VALUES (@id, @account, @url, @secret, @createdAt)"),
    listWebhooks: db.prepare("SELECT id, account, url, secret, created_at AS createdAt FROM alert_webhooks ORDER BY created_at, id"),
    removeWebhook: db.prepare("DELETE FROM alert_webhooks WHERE id = ?"),
    failPending: db.prepare("UPDATE alert_deliveries SET status = 'failed', next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending'"),
    settings: db.prepare("SELECT account, percents, low_balance, updated_at FROM alert_settings WHERE account = ?").safeIntegers(),
    setSettings: db.prepare(`INSERT INTO alert_settings (account, percents, low_balance, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (account) DO UPDATE SET percents = excluded.percents, low_balance = excluded.low_balance, updated_at = excluded.updated_at`),
    queue: db.prepare(`INSERT INTO alert_deliveries (id, webhook_id, event_key, url, account, type, body, next_attempt_at, created_at)
      VALUES (@id, @webhookId, @eventKey, @url, @account, @type, @body, @createdAt, @createdAt) ON CONFLICT (webhook_id, event_key) DO NOTHING`),
    anyDue: db.prepare("SELECT 1 FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= ? LIMIT 1").pluck(),
    claim: db.prepare(`UPDATE alert_deliveries SET attempts = attempts + 1, next_attempt_at = @leaseUntil
      WHERE id IN (SELECT id FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= @now ORDER BY next_attempt_at LIMIT @limit)
      RETURNING id`),
    claimed: db.prepare(`SELECT ${DELIVERY_COLUMNS}, w.secret FROM alert_deliveries d LEFT JOIN alert_webhooks w ON w.id = d.webhook_id WHERE d.id = ?`),
    finish: db.prepare(`UPDATE alert_deliveries SET status = @status, last_status = @lastStatus, next_attempt_at = @nextAttemptAt,
      delivered_at = @deliveredAt WHERE id = @id`),
    listAll: db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries d ORDER BY d.created_at DESC, d.id DESC LIMIT ?`),
    listAccount: db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries d WHERE d.account = ? ORDER BY d.created_at DESC, d.id DESC LIMIT ?`),
  };
  const queue = writeTransaction(db, (rows: NewDelivery[]) => rows.reduce((n, r) => n + s.queue.run(r).changes, 0));
  const claim = writeTransaction(db, (now: number, leaseUntil: number, limit: number) =>
    (s.claim.all({ now, leaseUntil, limit }) as Array<{ id: string }>).map((r) => s.claimed.get(r.id) as ClaimedDelivery),
  );
  const remove = writeTransaction(db, (id: string, at: number) => {
    s.failPending.run(at, id);
    return s.removeWebhook.run(id).changes > 0;
  });
  return {
    addWebhook: (w: Webhook) => void s.addWebhook.run(w),
    listWebhooks: () => s.listWebhooks.all() as Webhook[],
    removeWebhook: remove,
    alertSettings: (account: string) => {
      const row = s.settings.get(account) as SettingsRow | undefined;
      return row && toSettings(row);
    },
    setAlertSettings: (a: AlertSettings) => void s.setSettings.run(a.account, a.percents.join(","), a.lowBalance, a.updatedAt),
    queueDeliveries: (rows: NewDelivery[]) => (rows.length ? queue(rows) : 0),
    // A read first: a poll that finds nothing due takes no write lock (the CLI writes the same file).
    claimDeliveries: (now: number, leaseUntil: number, limit: number) => (s.anyDue.get(now) === undefined ? [] : claim(now, leaseUntil, limit)),
    finishDelivery: (id: string, o: DeliveryOutcome) => void s.finish.run({ id, ...o }),
    listDeliveries: (o: { account?: string; limit: number }) =>
      (o.account === undefined ? s.listAll.all(o.limit) : s.listAccount.all(o.account, o.limit)) as Delivery[],
  };
}
