/**
 * Schema migrations, versioned by PRAGMA user_version and applied on open. Append only:
 * a released migration is never edited. Money columns are integer nano-USD (1e-9 USD).
 */
import { accountMigrations } from "./migrations-accounts.js";
import { mcpMigrations } from "./migrations-mcp.js";

export const migrations: string[] = [
  `CREATE TABLE accounts (
     id TEXT PRIMARY KEY,
     balance INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     account TEXT NOT NULL REFERENCES accounts(id),
     hash TEXT NOT NULL UNIQUE,
     last4 TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER,
     revoked_at INTEGER,
     last_used_at INTEGER,
     rpm INTEGER
   ) STRICT;
   CREATE TABLE credit_grants (
     id INTEGER PRIMARY KEY,
     account TEXT NOT NULL REFERENCES accounts(id),
     amount INTEGER NOT NULL,
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE reservations (
     id TEXT PRIMARY KEY,
     account TEXT NOT NULL REFERENCES accounts(id),
     amount INTEGER NOT NULL CHECK (amount >= 0),
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE ledger (
     id INTEGER PRIMARY KEY,
     request_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     account TEXT NOT NULL,
     key_id TEXT NOT NULL,
     model TEXT NOT NULL,
     provider TEXT,
     prompt_tokens INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     cost INTEGER NOT NULL CHECK (cost >= 0),
     list_cost INTEGER NOT NULL,
     byok INTEGER NOT NULL,
     usage_source TEXT NOT NULL,
     status TEXT NOT NULL,
     http_status INTEGER NOT NULL,
     latency_ms INTEGER NOT NULL,
     attempts INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX ledger_account_time ON ledger(account, created_at);
   CREATE TABLE attempts (
     id INTEGER PRIMARY KEY,
     request_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     provider TEXT NOT NULL,
     model TEXT NOT NULL,
     outcome TEXT NOT NULL,
     http_status INTEGER,
     latency_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX attempts_request ON attempts(request_id);
   CREATE TABLE byok_keys (
     account TEXT NOT NULL REFERENCES accounts(id),
     provider TEXT NOT NULL,
     secret BLOB NOT NULL,
     last4 TEXT NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (account, provider)
   ) STRICT;
   CREATE TABLE catalog (
     id TEXT PRIMARY KEY,
     owned_by TEXT NOT NULL,
     prompt_price INTEGER,
     completion_price INTEGER,
     context_length INTEGER,
     max_output INTEGER,
     endpoints TEXT NOT NULL,
     source TEXT NOT NULL,
     created INTEGER NOT NULL
   ) STRICT;`,
  // 2: reservations are held in memory by the one process that owns the database.
  `DROP TABLE reservations;`,
  // 3: retention (src/operations/retention.ts). Ledger rows past the retention are folded into daily
  // totals that are kept; usage reads both. "day" is the UTC midnight, in ms like created_at.
  `CREATE TABLE usage_daily (
     day INTEGER NOT NULL,
     account TEXT NOT NULL,
     key_id TEXT NOT NULL,
     model TEXT NOT NULL,
     byok INTEGER NOT NULL,
     requests INTEGER NOT NULL,
     prompt_tokens INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     cost INTEGER NOT NULL CHECK (cost >= 0),
     list_cost INTEGER NOT NULL,
     PRIMARY KEY (day, account, key_id, model, byok)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX usage_daily_account_day ON usage_daily(account, day);`,
  // 4: the journal of streams in flight (src/billing/journal.ts): rewritten every few seconds, each row
  // dropped in the transaction that settles its request; rows left by a killed process are
  // settled at the next start, so what a kill leaves unbilled is bounded (docs/limits.md).
  `CREATE TABLE inflight (
     request_id TEXT PRIMARY KEY,
     created_at INTEGER NOT NULL,
     account TEXT NOT NULL,
     key_id TEXT NOT NULL,
     model TEXT NOT NULL,
     provider TEXT,
     prompt_tokens INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     list_cost INTEGER NOT NULL,
     byok INTEGER NOT NULL
   ) STRICT;`,
  // endpoint: the API a request came through ('chat', 'embeddings', 'responses'), so usage can
  // be reported by endpoint. The daily rollups keep it too: usage_daily is rebuilt with it in
  // its key (a WITHOUT ROWID table's key cannot be altered); older rows were all chat.
  `ALTER TABLE ledger ADD COLUMN endpoint TEXT NOT NULL DEFAULT 'chat';
   CREATE TABLE usage_daily_by_endpoint (
     day INTEGER NOT NULL,
     account TEXT NOT NULL,
     key_id TEXT NOT NULL,
     model TEXT NOT NULL,
     byok INTEGER NOT NULL,
     endpoint TEXT NOT NULL,
     requests INTEGER NOT NULL,
     prompt_tokens INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     cost INTEGER NOT NULL CHECK (cost >= 0),
     list_cost INTEGER NOT NULL,
     PRIMARY KEY (day, account, key_id, model, byok, endpoint)
   ) STRICT, WITHOUT ROWID;
   INSERT INTO usage_daily_by_endpoint (day, account, key_id, model, byok, endpoint, requests, prompt_tokens, completion_tokens, cost, list_cost)
     SELECT day, account, key_id, model, byok, 'chat', requests, prompt_tokens, completion_tokens, cost, list_cost FROM usage_daily;
   DROP TABLE usage_daily;
   ALTER TABLE usage_daily_by_endpoint RENAME TO usage_daily;
   CREATE INDEX usage_daily_account_day ON usage_daily(account, day);`,
  // responses: POST /v1/responses with store (src/responses/), kept per account for
  // previous_response_id and GET/DELETE /v1/responses/{id}; pruned with the ledger's retention.
  `CREATE TABLE responses (
     id TEXT PRIMARY KEY,
     account TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     model TEXT NOT NULL,
     previous_id TEXT,
     items TEXT NOT NULL,
     response TEXT NOT NULL
   ) STRICT;
   CREATE INDEX responses_created ON responses(created_at);`,
  // Money, continued (docs/billing.md): the part of a charge the balance or the key's budget
  // could not cover (ledger and rollups); key budgets, and each key's spend counter for the
  // period that starts at spent_since (src/core/budget-periods.ts), counted from what is already recorded.
  `ALTER TABLE ledger ADD COLUMN uncollected INTEGER NOT NULL DEFAULT 0 CHECK (uncollected >= 0);
   ALTER TABLE usage_daily ADD COLUMN uncollected INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE keys ADD COLUMN budget INTEGER CHECK (budget >= 0);
   ALTER TABLE keys ADD COLUMN budget_period TEXT NOT NULL DEFAULT 'total' CHECK (budget_period IN ('day', 'week', 'month', 'total'));
   ALTER TABLE keys ADD COLUMN spent INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE keys ADD COLUMN spent_since INTEGER NOT NULL DEFAULT 0;
   UPDATE keys SET spent = COALESCE((SELECT SUM(cost) FROM ledger WHERE key_id = keys.id), 0)
     + COALESCE((SELECT SUM(cost) FROM usage_daily WHERE key_id = keys.id), 0);`,
  // credits adjust (issue 15): a grant row says what it was, and a correction why.
  `ALTER TABLE credit_grants ADD COLUMN kind TEXT NOT NULL DEFAULT 'grant';
   ALTER TABLE credit_grants ADD COLUMN reason TEXT;`,
  // The dashboard (docs/dashboard.md): its users (one account each; admins see every account),
  // server-side sessions and one-time sign-in links. Only hashes are stored: scrypt for
  // passwords, SHA-256 for session and link tokens (random, so a fast hash is enough).
  `CREATE TABLE dashboard_users (
     email TEXT PRIMARY KEY,
     account TEXT NOT NULL REFERENCES accounts(id),
     admin INTEGER NOT NULL DEFAULT 0,
     password_hash TEXT,
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE dashboard_sessions (
     hash TEXT PRIMARY KEY,
     email TEXT NOT NULL REFERENCES dashboard_users(email) ON DELETE CASCADE,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX dashboard_sessions_email ON dashboard_sessions(email);
   CREATE TABLE dashboard_links (
     hash TEXT PRIMARY KEY,
     email TEXT NOT NULL REFERENCES dashboard_users(email) ON DELETE CASCADE,
     expires_at INTEGER NOT NULL
   ) STRICT;`,
  // Who added or adjusted credits (`gateway credits history`, docs/cli.md): `cli:<os user>` or a
  // dashboard user's email; rows from before stay null.
  `ALTER TABLE credit_grants ADD COLUMN actor TEXT;`,
  // The response cache (docs/cache.md): whether a key's requests may be answered from it, and
  // the daily rollups keep how many requests were cache hits and the list cost they saved.
  `ALTER TABLE keys ADD COLUMN cache TEXT NOT NULL DEFAULT 'off' CHECK (cache IN ('off', 'on', 'nondeterministic'));
   ALTER TABLE usage_daily ADD COLUMN cache_hits INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage_daily ADD COLUMN cache_saved INTEGER NOT NULL DEFAULT 0;`,
  // Members and roles (docs/dashboard.md): a user belongs to one or more accounts with a role in
  // each; every user so far becomes the owner of their account, what they were before roles.
  // A key records the dashboard user who created it (null: the CLI, or before this).
  `CREATE TABLE memberships (
     email TEXT NOT NULL REFERENCES dashboard_users(email) ON DELETE CASCADE,
     account TEXT NOT NULL REFERENCES accounts(id),
     role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
     created_at INTEGER NOT NULL,
     PRIMARY KEY (email, account)
   ) STRICT;
   CREATE INDEX memberships_account ON memberships(account);
   INSERT INTO memberships (email, account, role, created_at) SELECT email, account, 'owner', created_at FROM dashboard_users;
   ALTER TABLE keys ADD COLUMN created_by TEXT;`,
  // Idle sessions end (docs/dashboard.md, "Sessions"): when a session was last used, recorded at most
  // once a minute; a session from before counts as used when it was created.
  `ALTER TABLE dashboard_sessions ADD COLUMN last_seen_at INTEGER NOT NULL DEFAULT 0;
   UPDATE dashboard_sessions SET last_seen_at = created_at;`,
  // Usage by tag (docs/usage.md): a request's tags, a JSON object name → value, on its ledger
  // row; retention folds them into usage_daily_tags, one row per day, account and tag pair, so
  // `gateway usage --by tag:NAME` stays exact after the rows are pruned.
  `ALTER TABLE ledger ADD COLUMN tags TEXT;
   CREATE TABLE usage_daily_tags (
     day INTEGER NOT NULL,
     account TEXT NOT NULL,
     name TEXT NOT NULL,
     value TEXT NOT NULL,
     requests INTEGER NOT NULL,
     prompt_tokens INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     cost INTEGER NOT NULL,
     PRIMARY KEY (account, name, day, value)
   ) STRICT;`,
  // Account and member budgets (docs/limits.md "Budgets"): a cap per period on an account, or on
  // the keys one member created in it; a spend counter for one period as on keys. member NULL is
  // the account's own budget; AUTOINCREMENT so a removed budget's id (the in-memory holds' key)
  // is never reused.
  `CREATE TABLE budgets (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     account TEXT NOT NULL REFERENCES accounts(id),
     member TEXT,
     amount INTEGER NOT NULL CHECK (amount >= 0),
     period TEXT NOT NULL CHECK (period IN ('day', 'week', 'month', 'total')),
     spent INTEGER NOT NULL DEFAULT 0,
     spent_since INTEGER NOT NULL DEFAULT 0
   ) STRICT;
   CREATE UNIQUE INDEX budgets_level ON budgets(account, COALESCE(member, ''));`,
  // Alerts (docs/alerts.md): webhooks (account null: every account's alerts; the signing secret
  // sealed like BYOK keys), each account's thresholds, and the delivery outbox whose unique
  // (webhook_id, event_key) makes "once per period per threshold per webhook" exact. Deliveries
  // keep the URL, so the log outlives a removed webhook.
  `CREATE TABLE alert_webhooks (
     id TEXT PRIMARY KEY,
     account TEXT REFERENCES accounts(id),
     url TEXT NOT NULL,
     secret BLOB NOT NULL,
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE alert_settings (
     account TEXT PRIMARY KEY REFERENCES accounts(id),
     percents TEXT NOT NULL,
     low_balance INTEGER CHECK (low_balance >= 0),
     updated_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE alert_deliveries (
     id TEXT PRIMARY KEY,
     webhook_id TEXT NOT NULL,
     event_key TEXT NOT NULL,
     url TEXT NOT NULL,
     account TEXT NOT NULL,
     type TEXT NOT NULL CHECK (type IN ('budget.threshold', 'balance.low')),
     body TEXT NOT NULL,
     status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
     attempts INTEGER NOT NULL DEFAULT 0,
     last_status INTEGER,
     next_attempt_at INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     delivered_at INTEGER,
     UNIQUE (webhook_id, event_key)
   ) STRICT;
   CREATE INDEX alert_deliveries_due ON alert_deliveries(next_attempt_at) WHERE status = 'pending';
   CREATE INDEX alert_deliveries_account ON alert_deliveries(account, created_at);`,
  // The audit log (docs/audit.md): append-only records, each with the hash of the previous one;
  // the one-row head holds the newest id and hash, so a removed newest record is detected too.
  `CREATE TABLE audit_log (
     id INTEGER PRIMARY KEY,
     at INTEGER NOT NULL,
     actor TEXT NOT NULL,
     ip TEXT,
     action TEXT NOT NULL,
     account TEXT,
     target TEXT NOT NULL,
     before TEXT,
     after TEXT,
     prev_hash TEXT NOT NULL,
     hash TEXT NOT NULL
   ) STRICT;
   CREATE INDEX audit_log_at ON audit_log(at);
   CREATE INDEX audit_log_account ON audit_log(account, id);
   CREATE TABLE audit_head (
     one INTEGER PRIMARY KEY CHECK (one = 1),
     last_id INTEGER NOT NULL,
     last_hash TEXT NOT NULL
   ) STRICT;
   INSERT INTO audit_head (one, last_id, last_hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');`,
  // Reported usage is the provider's bill (docs/limits.md): a count a bound cut is kept beside the
  // one billed (null: billed as reported); per-call tool fees (docs/billing.md) as their counts by
  // tool (JSON) and their part of the list cost. Rollups keep how many requests were billed at a
  // bound and the fees.
  `ALTER TABLE ledger ADD COLUMN reported_prompt_tokens INTEGER CHECK (reported_prompt_tokens >= 0);
   ALTER TABLE ledger ADD COLUMN reported_completion_tokens INTEGER CHECK (reported_completion_tokens >= 0);
   ALTER TABLE ledger ADD COLUMN tool_calls TEXT;
   ALTER TABLE ledger ADD COLUMN reported_tool_calls TEXT;
   ALTER TABLE ledger ADD COLUMN tool_cost INTEGER NOT NULL DEFAULT 0 CHECK (tool_cost >= 0);
   ALTER TABLE usage_daily ADD COLUMN bounded INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage_daily ADD COLUMN tool_cost INTEGER NOT NULL DEFAULT 0;`,
  // Model prices beyond the catalog's own (docs/billing.md, "Model prices"): `models price` (origin
  // operator) and `models sync --prices` (origin file), kept apart from the catalog table that
  // every sync replaces, so a price outlives later syncs. nano-USD per 1M tokens.
  `CREATE TABLE model_prices (
     id TEXT NOT NULL,
     origin TEXT NOT NULL CHECK (origin IN ('operator', 'file')),
     prompt INTEGER NOT NULL CHECK (prompt >= 0),
     completion INTEGER NOT NULL CHECK (completion >= 0),
     cache_read INTEGER CHECK (cache_read >= 0),
     cache_write INTEGER CHECK (cache_write >= 0),
     context_length INTEGER,
     max_output INTEGER,
     source TEXT NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (id, origin)
   ) STRICT;`,
  ...accountMigrations,
  ...mcpMigrations,
  // Secret guardrails (docs/guardrails.md): a key's own mode; null takes the config's.
  `ALTER TABLE keys ADD COLUMN guardrails TEXT CHECK (guardrails IN ('block', 'redact', 'log', 'off'));`,
];
