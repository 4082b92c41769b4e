/**
 * Alerts on PostgreSQL (src/store/alerts.ts). Webhook and threshold writes send the change notice
 * (watch.ts) so every process's detector sees them within 5 s; deliveries do not (they change no
 * cache). A claim takes due rows FOR UPDATE SKIP LOCKED: two processes never send the same attempt.
 */
import type pg from "pg";
import type { AlertSettings, ClaimedDelivery, Delivery, DeliveryOutcome, NewDelivery, Webhook } from "../alerts.js";
import { num, query, transaction } from "./db.js";
import { notify } from "./watch.js";

const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.url, d.account, d.type, d.body, d.status, d.attempts, d.last_status,
  d.next_attempt_at, d.created_at, d.delivered_at`;

interface DeliveryRow {
  id: string;
  webhook_id: string;
  url: string;
  account: string;
  type: Delivery["type"];
  body: string;
  status: Delivery["status"];
  attempts: number;
  last_status: number | null;
  next_attempt_at: string;
  created_at: string;
  delivered_at: string | null;
  secret?: Buffer | null;
}

const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  webhookId: r.webhook_id,
  url: r.url,
  account: r.account,
  type: r.type,
  body: r.body,
  status: r.status,
  attempts: r.attempts,
  lastStatus: r.last_status,
  nextAttemptAt: Number(r.next_attempt_at),
  createdAt: Number(r.created_at),
  deliveredAt: num(r.delivered_at),
});

interface WebhookRow {
  id: string;
  account: string | null;
  url: string;
  secret: Buffer;
  created_at: string;
}

export function pgAlerts(pool: pg.Pool) {
  return {
    addWebhook: (w: Webhook) =>
      transaction(pool, async (c) => {
        await c.query("INSERT INTO alert_webhooks (id, account, url, secret, created_at) VALUES ($1, $2, $3, $4, $5)", [
          w.id,
          w.account,
          w.url,
          w.secret,
          w.createdAt,
        ]);
        await notify(c);
      }),
    listWebhooks: async () =>
      (await query<WebhookRow>(pool, "SELECT * FROM alert_webhooks ORDER BY created_at, id")).rows.map((r): Webhook => ({
        id: r.id,
        account: r.account,
        url: r.url,
        secret: r.secret,
        createdAt: Number(r.created_at),
      })),
    removeWebhook: (id: string, at: number) =>
      transaction(pool, async (c) => {
        await c.query("UPDATE alert_deliveries SET status = 'failed', next_attempt_at = $1 WHERE webhook_id = $2 AND status = 'pending'", [at, id]);
        const r = await c.query("DELETE FROM alert_webhooks WHERE id = $1", [id]);
        await notify(c);
        return (r.rowCount ?? 0) > 0;
      }),
    alertSettings: async (account: string): Promise<AlertSettings | undefined> => {
      const r = (
        await query<{ percents: string; low_balance: string | null; updated_at: string }>(pool, "SELECT * FROM alert_settings WHERE account = $1", [account])
      ).rows[0];
      return (
        r && {
          account,
          percents: r.percents.split(",").map(Number),
          lowBalance: r.low_balance === null ? null : BigInt(r.low_balance),
          updatedAt: Number(r.updated_at),
        }
      );
    },
    setAlertSettings: (a: AlertSettings) =>
      transaction(pool, async (c) => {
        await c.query(
          `INSERT INTO alert_settings (account, percents, low_balance, updated_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (account) DO UPDATE SET percents = excluded.percents, low_balance = excluded.low_balance, updated_at = excluded.updated_at`,
          [a.account, a.percents.join(","), a.lowBalance?.toString() ?? null, a.updatedAt],
        );
        await notify(c);
      }),
    queueDeliveries: async (rows: NewDelivery[]) => {
      if (rows.length === 0) return 0;
      const r = await query(
        pool,
        `INSERT INTO alert_deliveries (id, webhook_id, event_key, url, account, type, body, next_attempt_at, created_at)
        SELECT * , created_at FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[])
          AS t(id, webhook_id, event_key, url, account, type, body, created_at)
        ON CONFLICT (webhook_id, event_key) DO NOTHING`,
        [
          rows.map((d) => d.id),
          rows.map((d) => d.webhookId),
          rows.map((d) => d.eventKey),
          rows.map((d) => d.url),
          rows.map((d) => d.account),
          rows.map((d) => d.type),
          rows.map((d) => d.body),
          rows.map((d) => d.createdAt),
        ],
      );
      return r.rowCount ?? 0;
    },
    claimDeliveries: async (now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]> => {
      const r = await query<DeliveryRow>(
        pool,
        `WITH due AS (
           SELECT id FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= $1
           ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED),
         d AS (UPDATE alert_deliveries a SET attempts = a.attempts + 1, next_attempt_at = $2 FROM due WHERE a.id = due.id RETURNING a.*)
         SELECT ${DELIVERY_COLUMNS}, w.secret FROM d LEFT JOIN alert_webhooks w ON w.id = d.webhook_id`,
        [now, leaseUntil, limit],
      );
      return r.rows.map((row) => ({ ...toDelivery(row), secret: row.secret ?? null }));
    },
    finishDelivery: async (id: string, o: DeliveryOutcome) => {
      await query(pool, "UPDATE alert_deliveries SET status = $2, last_status = $3, next_attempt_at = $4, delivered_at = $5 WHERE id = $1", [
        id,
        o.status,
        o.lastStatus,
        o.nextAttemptAt,
        o.deliveredAt,
      ]);
    },
    listDeliveries: async (o: { account?: string; limit: number }) =>
      (o.account === undefined
        ? await query<DeliveryRow>(pool, `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries d ORDER BY d.created_at DESC, d.id DESC LIMIT $1`, [o.limit])
        : await query<DeliveryRow>(
            pool,
            `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries d WHERE d.account = $1 ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
            [o.account, o.limit],
          )
      ).rows.map(toDelivery),
  };
}
