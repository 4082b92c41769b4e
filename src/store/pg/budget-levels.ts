/**
 * Migration: account and member budgets (docs/limits.md "Budgets"), held and settled in the
 * same function call as the balance and the key's budget, so admission stays one round trip
 * and exact across any number of processes (docs/fleet.md).
 *
 * - `budgets`: one row per account budget (member NULL) or member budget, with a spend counter
 *   for one period and `held`, the sum of open holds, as on accounts and keys.
 * - `holds` records the budget rows a hold counts against, so every way a hold ends (settled,
 *   released, expired, settled twice) gives back exactly what it took.
 * - gw_reserve takes `p_member` (who created the key) and `p_starts` (each period's start);
 *   every level is a conditional UPDATE, locked after the account's row (one order everywhere).
 */
const table = `
  CREATE TABLE budgets (
    id bigserial PRIMARY KEY,
    account text NOT NULL REFERENCES accounts(id),
    member text,
    amount bigint NOT NULL CHECK (amount >= 0),
    period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'total')),
    spent bigint NOT NULL DEFAULT 0,
    spent_since bigint NOT NULL DEFAULT 0,
    held bigint NOT NULL DEFAULT 0 CHECK (held >= 0)
  );
  CREATE UNIQUE INDEX budgets_level ON budgets(account, COALESCE(member, ''));
  ALTER TABLE holds ADD COLUMN account_budget bigint, ADD COLUMN member_budget bigint;`;

const reserve = `
  DROP FUNCTION gw_reserve(text, text, bigint, text, bigint, bigint, text, bigint);
  CREATE FUNCTION gw_reserve(p_id text, p_account text, p_amount bigint, p_key text, p_limit bigint, p_since bigint,
      p_member text, p_starts jsonb, p_owner text, p_expires bigint) RETURNS boolean LANGUAGE plpgsql AS $fn$
  DECLARE
    v_ab bigint;
    v_mb bigint;
  BEGIN
    UPDATE accounts SET held = held + p_amount WHERE id = p_account AND balance - held >= p_amount AND held + p_amount <= 9007199254740991;
    IF NOT FOUND THEN RETURN false; END IF;
    IF p_key IS NOT NULL THEN
      UPDATE keys SET held = held + p_amount
        WHERE id = p_key AND (CASE WHEN spent_since >= p_since THEN spent ELSE 0 END) + held + p_amount <= p_limit;
      IF NOT FOUND THEN RAISE EXCEPTION 'budget' USING ERRCODE = 'P0B01'; END IF;
    END IF;
    IF p_starts IS NOT NULL THEN
      SELECT id INTO v_ab FROM budgets WHERE account = p_account AND member IS NULL;
      IF v_ab IS NOT NULL THEN
        UPDATE budgets SET held = held + p_amount WHERE id = v_ab
          AND (CASE WHEN spent_since >= (p_starts->>period)::bigint THEN spent ELSE 0 END) + held + p_amount <= amount;
        IF NOT FOUND THEN RAISE EXCEPTION 'budget' USING ERRCODE = 'P0B01'; END IF;
      END IF;
      IF p_member IS NOT NULL THEN
        SELECT id INTO v_mb FROM budgets WHERE account = p_account AND member = p_member;
        IF v_mb IS NOT NULL THEN
          UPDATE budgets SET held = held + p_amount WHERE id = v_mb
            AND (CASE WHEN spent_since >= (p_starts->>period)::bigint THEN spent ELSE 0 END) + held + p_amount <= amount;
          IF NOT FOUND THEN RAISE EXCEPTION 'budget' USING ERRCODE = 'P0B01'; END IF;
        END IF;
      END IF;
    END IF;
    INSERT INTO holds (id, account, key_id, amount, owner, expires_at, account_budget, member_budget)
      VALUES (p_id, p_account, p_key, p_amount, p_owner, p_expires, v_ab, v_mb);
    RETURN true;
  EXCEPTION WHEN SQLSTATE 'P0B01' THEN
    RETURN false;
  END $fn$;`;

/** A hold that ends gives back what it took, on every level it took it from. */
const giveBack = `
  CREATE FUNCTION gw_give_back(p_amount bigint, p_account text, p_key text, p_ab bigint, p_mb bigint) RETURNS void LANGUAGE plpgsql AS $fn$
  BEGIN
    UPDATE accounts SET held = held - p_amount WHERE id = p_account;
    IF p_key IS NOT NULL THEN UPDATE keys SET held = held - p_amount WHERE id = p_key; END IF;
    IF p_ab IS NOT NULL OR p_mb IS NOT NULL THEN UPDATE budgets SET held = held - p_amount WHERE id IN (p_ab, p_mb); END IF;
  END $fn$;
  CREATE OR REPLACE FUNCTION gw_release_expired(p_now bigint) RETURNS integer LANGUAGE plpgsql AS $fn$
  DECLARE n integer;
  BEGIN
    WITH gone AS (DELETE FROM holds WHERE expires_at < p_now RETURNING account, key_id, amount, account_budget, member_budget),
    a AS (UPDATE accounts SET held = accounts.held - s.amount
          FROM (SELECT account, SUM(amount) AS amount FROM gone GROUP BY account) s WHERE accounts.id = s.account),
    k AS (UPDATE keys SET held = keys.held - s.amount
          FROM (SELECT key_id, SUM(amount) AS amount FROM gone WHERE key_id IS NOT NULL GROUP BY key_id) s WHERE keys.id = s.key_id),
    b AS (UPDATE budgets SET held = budgets.held - s.amount
          FROM (SELECT bid, SUM(amount) AS amount FROM (SELECT account_budget AS bid, amount FROM gone UNION ALL SELECT member_budget, amount FROM gone) x
                WHERE bid IS NOT NULL GROUP BY bid) s WHERE budgets.id = s.bid)
    SELECT COUNT(*) INTO n FROM gone;
    RETURN n;
  END $fn$;`;

/** A second settlement of the same request only releases the hold it was given (settle-once.ts), on every level. */
const settleAgain = `
  CREATE OR REPLACE FUNCTION gw_settle(p_hold text, e jsonb, p_starts jsonb, p_attempts jsonb) RETURNS bigint LANGUAGE plpgsql AS $fn$
  DECLARE
    v_charged bigint;
    h record;
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(e->>'requestId', 7263));
    SELECT cost INTO v_charged FROM ledger WHERE request_id = e->>'requestId' LIMIT 1;
    IF NOT FOUND THEN
      RETURN gw_settle_first(p_hold, e, p_starts, p_attempts);
    END IF;
    IF p_hold IS NOT NULL THEN
      DELETE FROM holds WHERE id = p_hold RETURNING amount, account, key_id, account_budget, member_budget INTO h;
      IF FOUND THEN PERFORM gw_give_back(h.amount, h.account, h.key_id, h.account_budget, h.member_budget); END IF;
    END IF;
    DELETE FROM inflight WHERE request_id = e->>'requestId';
    RETURN v_charged;
  END $fn$;`;

export const budgetLevels = table + reserve + giveBack + settleAgain;
