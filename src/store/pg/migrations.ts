/**
 * The PostgreSQL schema, versioned in `gateway_migrations` and applied under an advisory lock
 * (src/store/pg/migrate.ts). Append only. The same tables as SQLite (src/store/sqlite/migrations.ts),
 * plus what several processes need (docs/fleet.md): holds as committed rows leased to the
 * process that took them, `held` sums on accounts and keys kept in the same transactions, and
 * the instances that lease them. Money is bigint nano-USD; times are bigint ms.
 *
 * Money moves in three functions, each one round trip and one transaction (docs/fleet.md):
 * gw_reserve (admission: one conditional UPDATE per row, so concurrent requests on any process
 * can never hold more than the balance), gw_settle (charge, ledger row, hold released) and
 * gw_release_expired (leases not renewed).
 */
import { settleOnce } from "./settle-once.js";
import { organizationMigrations } from "./migrations-organizations.js";
import { leaseMigrations } from "./migrations-leases.js";
import { reportedUsage } from "./migrations-reported.js";
import { accountMigrations } from "./migrations-accounts.js";
import { mcpMigrations } from "./migrations-mcp.js";

export const pgMigrations: string[] = [
  `CREATE TABLE accounts (
     id text PRIMARY KEY,
     balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
     held bigint NOT NULL DEFAULT 0 CHECK (held >= 0),
     created_at bigint NOT NULL
   );
   CREATE TABLE keys (
     id text PRIMARY KEY,
     name text NOT NULL UNIQUE,
     account text NOT NULL REFERENCES accounts(id),
     hash text NOT NULL UNIQUE,
     last4 text NOT NULL,
     created_at bigint NOT NULL,
     expires_at bigint,
     revoked_at bigint,
     last_used_at bigint,
     rpm integer,
     budget bigint CHECK (budget >= 0),
     budget_period text NOT NULL DEFAULT 'total' CHECK (budget_period IN ('day', 'week', 'month', 'total')),
     spent bigint NOT NULL DEFAULT 0,
     spent_since bigint NOT NULL DEFAULT 0,
     held bigint NOT NULL DEFAULT 0 CHECK (held >= 0)
   );
   CREATE INDEX keys_account ON keys(account);
   CREATE TABLE credit_grants (
     id bigserial PRIMARY KEY,
     account text NOT NULL REFERENCES accounts(id),
     amount bigint NOT NULL,
     created_at bigint NOT NULL,
     kind text NOT NULL DEFAULT 'grant',
     reason text
   );
   CREATE TABLE instances (
     id text PRIMARY KEY,
     seen_at bigint NOT NULL
   );
   CREATE TABLE holds (
     id text PRIMARY KEY,
     account text NOT NULL,
     key_id text,
     amount bigint NOT NULL CHECK (amount >= 0),
     owner text NOT NULL,
     expires_at bigint NOT NULL
   );
   CREATE INDEX holds_expiry ON holds(expires_at);
   CREATE INDEX holds_owner ON holds(owner);
   CREATE TABLE ledger (
     id bigserial PRIMARY KEY,
     request_id text NOT NULL,
     created_at bigint NOT NULL,
     account text NOT NULL,
     key_id text NOT NULL,
     model text NOT NULL,
     provider text,
     prompt_tokens bigint NOT NULL,
     completion_tokens bigint NOT NULL,
     cost bigint NOT NULL CHECK (cost >= 0),
     list_cost bigint NOT NULL,
     byok boolean NOT NULL,
     usage_source text NOT NULL,
     status text NOT NULL,
     http_status integer NOT NULL,
     latency_ms bigint NOT NULL,
     attempts integer NOT NULL,
     endpoint text NOT NULL DEFAULT 'chat',
     uncollected bigint NOT NULL DEFAULT 0 CHECK (uncollected >= 0)
   );
   CREATE INDEX ledger_account_time ON ledger(account, created_at);
   CREATE INDEX ledger_key_time ON ledger(key_id, created_at);
   CREATE INDEX ledger_time ON ledger(created_at);
   CREATE TABLE attempts (
     id bigserial PRIMARY KEY,
     request_id text NOT NULL,
     created_at bigint NOT NULL,
     provider text NOT NULL,
     model text NOT NULL,
     outcome text NOT NULL,
     http_status integer,
     latency_ms bigint NOT NULL
   );
   CREATE INDEX attempts_request ON attempts(request_id);
   CREATE TABLE usage_daily (
     day bigint NOT NULL,
     account text NOT NULL,
     key_id text NOT NULL,
     model text NOT NULL,
     byok boolean NOT NULL,
     endpoint text NOT NULL,
     requests bigint NOT NULL,
     prompt_tokens bigint NOT NULL,
     completion_tokens bigint NOT NULL,
     cost bigint NOT NULL CHECK (cost >= 0),
     list_cost bigint NOT NULL,
     uncollected bigint NOT NULL DEFAULT 0,
     PRIMARY KEY (day, account, key_id, model, byok, endpoint)
   );
   CREATE INDEX usage_daily_account_day ON usage_daily(account, day);
   CREATE TABLE byok_keys (
     account text NOT NULL REFERENCES accounts(id),
     provider text NOT NULL,
     secret bytea NOT NULL,
     last4 text NOT NULL,
     updated_at bigint NOT NULL,
     PRIMARY KEY (account, provider)
   );
   CREATE TABLE catalog (
     id text PRIMARY KEY,
     owned_by text NOT NULL,
     prompt_price bigint,
     completion_price bigint,
     context_length bigint,
     max_output bigint,
     endpoints text NOT NULL,
     source text NOT NULL,
     created bigint NOT NULL
   );
   CREATE TABLE inflight (
     request_id text PRIMARY KEY,
     owner text NOT NULL,
     created_at bigint NOT NULL,
     account text NOT NULL,
     key_id text NOT NULL,
     model text NOT NULL,
     provider text,
     prompt_tokens bigint NOT NULL,
     completion_tokens bigint NOT NULL,
     list_cost bigint NOT NULL,
     byok boolean NOT NULL
   );
   CREATE INDEX inflight_owner ON inflight(owner);
   CREATE TABLE responses (
     id text PRIMARY KEY,
     account text NOT NULL,
     created_at bigint NOT NULL,
     model text NOT NULL,
     previous_id text,
     items text NOT NULL,
     response text NOT NULL
   );
   CREATE INDEX responses_created ON responses(created_at);`,
  // Admission: the account's balance minus every open hold must cover the amount, and the key's
  // budget minus its period's spend and holds, or nothing is held. Each check is an UPDATE with
  // the condition in its WHERE, so a concurrent reserve on any process re-checks against the
  // committed row (no read-then-write); a refused budget rolls the account's hold back.
  `CREATE FUNCTION gw_reserve(p_id text, p_account text, p_amount bigint, p_key text, p_limit bigint, p_since bigint,
       p_owner text, p_expires bigint) RETURNS boolean LANGUAGE plpgsql AS $fn$
   BEGIN
     -- Holds stay below 2^53 per account, as on SQLite (the Store interface reports them as numbers).
     UPDATE accounts SET held = held + p_amount WHERE id = p_account AND balance - held >= p_amount AND held + p_amount <= 9007199254740991;
     IF NOT FOUND THEN RETURN false; END IF;
     IF p_key IS NOT NULL THEN
       UPDATE keys SET held = held + p_amount
         WHERE id = p_key AND (CASE WHEN spent_since >= p_since THEN spent ELSE 0 END) + held + p_amount <= p_limit;
       IF NOT FOUND THEN RAISE EXCEPTION 'budget' USING ERRCODE = 'P0B01'; END IF;
     END IF;
     INSERT INTO holds (id, account, key_id, amount, owner, expires_at) VALUES (p_id, p_account, p_key, p_amount, p_owner, p_expires);
     RETURN true;
   EXCEPTION WHEN SQLSTATE 'P0B01' THEN
     RETURN false;
   END $fn$;`,
  // Settlement (docs/billing.md): the whole list cost where the balance and the key's budget
  // allow it beyond other requests' holds, never below zero; the rest is uncollected. The
  // request's own hold is released in the same transaction, its journal row dropped.
  // p_starts: the start of each budget period for the request's time ({"day": ms, ...}).
  `CREATE FUNCTION gw_settle(p_hold text, e jsonb, p_starts jsonb, p_attempts jsonb) RETURNS bigint LANGUAGE plpgsql AS $fn$
   DECLARE
     v_account text := e->>'account';
     v_key text := e->>'keyId';
     v_cost bigint := (e->>'cost')::bigint;
     v_own bigint := 0;
     v_own_key text;
     v_own_key_amount bigint := 0;
     v_balance bigint;
     v_held bigint;
     v_room bigint;
     v_charge bigint := 0;
     v_start bigint;
     v_key_room bigint;
     v_budgeted boolean := false;
     k record;
   BEGIN
     IF p_hold IS NOT NULL THEN
       DELETE FROM holds WHERE id = p_hold RETURNING amount, key_id INTO v_own, v_own_key;
       IF NOT FOUND THEN v_own := 0; v_own_key := NULL; END IF;
     END IF;
     SELECT balance, held INTO v_balance, v_held FROM accounts WHERE id = v_account FOR UPDATE;
     v_room := COALESCE(v_balance, 0) - (COALESCE(v_held, 0) - v_own);
     IF v_own_key IS NOT NULL AND v_own_key = v_key THEN v_own_key_amount := v_own; END IF;
     SELECT budget, budget_period, spent, spent_since, held INTO k FROM keys WHERE id = v_key FOR UPDATE;
     IF FOUND AND k.budget IS NOT NULL THEN
       v_budgeted := true;
       v_start := (p_starts->>k.budget_period)::bigint;
       IF k.spent_since > v_start THEN
         v_key_room := v_own_key_amount; -- a request of a period already over takes no more than its hold
       ELSE
         v_key_room := k.budget - (CASE WHEN k.spent_since >= v_start THEN k.spent ELSE 0 END) - (k.held - v_own_key_amount);
       END IF;
       v_room := LEAST(v_room, v_key_room);
     END IF;
     IF v_cost > 0 AND v_room > 0 THEN v_charge := LEAST(v_room, v_cost); END IF;
     UPDATE accounts SET balance = balance - v_charge, held = held - v_own WHERE id = v_account;
     IF v_own_key IS NOT NULL THEN UPDATE keys SET held = held - v_own WHERE id = v_own_key; END IF;
     IF v_charge > 0 AND v_budgeted THEN
       UPDATE keys SET spent = CASE WHEN spent_since = v_start THEN spent + v_charge WHEN spent_since < v_start THEN v_charge ELSE spent END,
         spent_since = GREATEST(spent_since, v_start) WHERE id = v_key;
     END IF;
     INSERT INTO ledger (request_id, created_at, account, key_id, model, provider, prompt_tokens, completion_tokens, cost, list_cost,
         byok, usage_source, status, http_status, latency_ms, attempts, endpoint, uncollected)
       VALUES (e->>'requestId', (e->>'createdAt')::bigint, v_account, v_key, e->>'model', e->>'provider', (e->>'promptTokens')::bigint,
         (e->>'completionTokens')::bigint, v_charge, (e->>'listCost')::bigint, (e->>'byok')::boolean, e->>'usageSource', e->>'status',
         (e->>'httpStatus')::integer, (e->>'latencyMs')::bigint, (e->>'attempts')::integer, COALESCE(e->>'endpoint', 'chat'), GREATEST(v_cost, 0) - v_charge);
     INSERT INTO attempts (request_id, created_at, provider, model, outcome, http_status, latency_ms)
       SELECT a."requestId", a."createdAt", a.provider, a.model, a.outcome, a."httpStatus", a."latencyMs"
       FROM jsonb_to_recordset(p_attempts) AS a("requestId" text, "createdAt" bigint, provider text, model text, outcome text, "httpStatus" integer, "latencyMs" bigint);
     DELETE FROM inflight WHERE request_id = e->>'requestId';
     RETURN v_charge;
   END $fn$;`,
  // Leases not renewed: the holds of a process that stopped renewing them (killed, frozen, cut
  // off) are released by whichever process sweeps first; each hold row goes exactly once.
  `CREATE FUNCTION gw_release_expired(p_now bigint) RETURNS integer LANGUAGE plpgsql AS $fn$
   DECLARE n integer;
   BEGIN
     WITH gone AS (DELETE FROM holds WHERE expires_at < p_now RETURNING account, key_id, amount),
     a AS (UPDATE accounts SET held = accounts.held - s.amount
           FROM (SELECT account, SUM(amount) AS amount FROM gone GROUP BY account) s WHERE accounts.id = s.account),
     k AS (UPDATE keys SET held = keys.held - s.amount
           FROM (SELECT key_id, SUM(amount) AS amount FROM gone WHERE key_id IS NOT NULL GROUP BY key_id) s WHERE keys.id = s.key_id)
     SELECT COUNT(*) INTO n FROM gone;
     RETURN n;
   END $fn$;`,
  // The dashboard (docs/dashboard.md), as SQLite's migration 10: users (one account each), server-side
  // sessions and one-time sign-in links; only hashes (scrypt for passwords, SHA-256 for tokens).
  `CREATE TABLE dashboard_users (
     email text PRIMARY KEY,
     account text NOT NULL REFERENCES accounts(id),
     admin boolean NOT NULL DEFAULT false,
     password_hash text,
     created_at bigint NOT NULL
   );
   CREATE TABLE dashboard_sessions (
     hash text PRIMARY KEY,
     email text NOT NULL REFERENCES dashboard_users(email) ON DELETE CASCADE,
     created_at bigint NOT NULL,
     expires_at bigint NOT NULL
   );
   CREATE INDEX dashboard_sessions_email ON dashboard_sessions(email);
   CREATE TABLE dashboard_links (
     hash text PRIMARY KEY,
     email text NOT NULL REFERENCES dashboard_users(email) ON DELETE CASCADE,
     expires_at bigint NOT NULL
   );`,
  settleOnce,
  // Who added or adjusted credits (`gateway credits history`, docs/cli.md): `cli:<os user>` or a
  // dashboard user's email; rows from before stay null.
  `ALTER TABLE credit_grants ADD COLUMN actor text;`,
  // The response cache (docs/cache.md), as SQLite's: whether a key's requests may be answered from
  // it, and the daily rollups keep how many requests were cache hits and the list cost they saved.
  `ALTER TABLE keys ADD COLUMN cache text NOT NULL DEFAULT 'off' CHECK (cache IN ('off', 'on', 'nondeterministic'));
   ALTER TABLE usage_daily ADD COLUMN cache_hits bigint NOT NULL DEFAULT 0;
   ALTER TABLE usage_daily ADD COLUMN cache_saved bigint NOT NULL DEFAULT 0;`,
  ...organizationMigrations,
  ...leaseMigrations,
  reportedUsage,
  // Model prices beyond the catalog's own, as SQLite's: `models price` and `models sync --prices`.
  `CREATE TABLE model_prices (
     id text NOT NULL,
     origin text NOT NULL CHECK (origin IN ('operator', 'file')),
     prompt bigint NOT NULL CHECK (prompt >= 0),
     completion bigint NOT NULL CHECK (completion >= 0),
     cache_read bigint CHECK (cache_read >= 0),
     cache_write bigint CHECK (cache_write >= 0),
     context_length integer,
     max_output integer,
     source text NOT NULL,
     updated_at bigint NOT NULL,
     PRIMARY KEY (id, origin)
   );`,
  ...accountMigrations,
  ...mcpMigrations,
  // Secret guardrails (docs/guardrails.md), as SQLite's: a key's own mode; null takes the config's.
  `ALTER TABLE keys ADD COLUMN guardrails text CHECK (guardrails IN ('block', 'redact', 'log', 'off'));`,
];
