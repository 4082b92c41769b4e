/**
 * The PostgreSQL migrations of the organizations work (docs/dashboard.md "Members and roles",
 * docs/limits.md "Budgets", docs/alerts.md, docs/audit.md, docs/usage.md), in order after
 * migrations.ts's earlier ones; the same append-only rule applies.
 */
import { budgetLevels } from "./budget-levels.js";
import { budgetSettle } from "./budget-settle.js";
export const organizationMigrations: string[] = [
  // Members and roles (docs/dashboard.md), as SQLite's: a user's role in each account they belong
  // to, every existing user the owner of theirs; a key records the dashboard user who created it.
  `CREATE TABLE memberships (
     email text NOT NULL REFERENCES dashboard_users(email) ON DELETE CASCADE,
     account text NOT NULL REFERENCES accounts(id),
     role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
     created_at bigint NOT NULL,
     PRIMARY KEY (email, account)
   );
   CREATE INDEX memberships_account ON memberships(account);
   INSERT INTO memberships (email, account, role, created_at) SELECT email, account, 'owner', created_at FROM dashboard_users;
   ALTER TABLE keys ADD COLUMN created_by text;`,
  // Idle sessions end (docs/dashboard.md, "Sessions"), as SQLite's: when a session was last used,
  // recorded at most once a minute; a session from before counts as used when it was created.
  `ALTER TABLE dashboard_sessions ADD COLUMN last_seen_at bigint NOT NULL DEFAULT 0;
   UPDATE dashboard_sessions SET last_seen_at = created_at;`,
  // Usage by tag (docs/usage.md), as SQLite's: a request's tags on its ledger row, and their
  // daily rollups. gw_settle_tagged settles through gw_settle (whatever its current version)
  // and writes the row's tags in the same transaction, so gw_settle itself stays untouched.
  `ALTER TABLE ledger ADD COLUMN tags jsonb;
   CREATE TABLE usage_daily_tags (
     day bigint NOT NULL,
     account text NOT NULL,
     name text NOT NULL,
     value text NOT NULL,
     requests bigint NOT NULL,
     prompt_tokens bigint NOT NULL,
     completion_tokens bigint NOT NULL,
     cost bigint NOT NULL,
     PRIMARY KEY (account, name, day, value)
   );
   CREATE FUNCTION gw_settle_tagged(p_hold text, e jsonb, p_starts jsonb, p_attempts jsonb) RETURNS bigint LANGUAGE plpgsql AS $fn$
   DECLARE v_charged bigint;
   BEGIN
     v_charged := gw_settle(p_hold, e, p_starts, p_attempts);
     IF jsonb_typeof(e->'tags') = 'object' THEN
       UPDATE ledger SET tags = e->'tags' WHERE request_id = e->>'requestId' AND tags IS NULL;
     END IF;
     RETURN v_charged;
   END $fn$;`,
  // Account and member budgets (docs/limits.md "Budgets"), as SQLite's, held and settled with the
  // balance in gw_reserve / gw_settle: the table, the new gw_reserve, release and expiry on every
  // level (budget-levels.ts), then the first settlement (budget-settle.ts).
  budgetLevels + budgetSettle,
  // Alerts (docs/alerts.md), as SQLite's: webhooks (account null: every account's), thresholds per
  // account, and the delivery outbox; unique (webhook_id, event_key) makes "once per period per
  // threshold per webhook" exact across processes, and claims take due rows FOR UPDATE SKIP LOCKED.
  `CREATE TABLE alert_webhooks (
     id text PRIMARY KEY,
     account text REFERENCES accounts(id),
     url text NOT NULL,
     secret bytea NOT NULL,
     created_at bigint NOT NULL
   );
   CREATE TABLE alert_settings (
     account text PRIMARY KEY REFERENCES accounts(id),
     percents text NOT NULL,
     low_balance bigint CHECK (low_balance >= 0),
     updated_at bigint NOT NULL
   );
   CREATE TABLE alert_deliveries (
     id text PRIMARY KEY,
     webhook_id text NOT NULL,
     event_key text NOT NULL,
     url text NOT NULL,
     account text NOT NULL,
     type text NOT NULL CHECK (type IN ('budget.threshold', 'balance.low')),
     body text NOT NULL,
     status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
     attempts integer NOT NULL DEFAULT 0,
     last_status integer,
     next_attempt_at bigint NOT NULL,
     created_at bigint NOT NULL,
     delivered_at bigint,
     UNIQUE (webhook_id, event_key)
   );
   CREATE INDEX alert_deliveries_due ON alert_deliveries(next_attempt_at) WHERE status = 'pending';
   CREATE INDEX alert_deliveries_account ON alert_deliveries(account, created_at);`,
  // The audit log (docs/audit.md), as SQLite's: append-only records, each with the hash of the previous one;
  // the one-row head holds the newest id and hash, so a removed newest record is detected too.
  `CREATE TABLE audit_log (
     id bigint PRIMARY KEY,
     at bigint NOT NULL,
     actor text NOT NULL,
     ip text,
     action text NOT NULL,
     account text,
     target text NOT NULL,
     before text,
     after text,
     prev_hash text NOT NULL,
     hash text NOT NULL
   );
   CREATE INDEX audit_log_at ON audit_log(at);
   CREATE INDEX audit_log_account ON audit_log(account, id);
   CREATE TABLE audit_head (
     one integer PRIMARY KEY CHECK (one = 1),
     last_id bigint NOT NULL,
     last_hash text NOT NULL
   );
   INSERT INTO audit_head (one, last_id, last_hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');`,
];
