/**
 * Migration: leases and group commit (docs/fleet.md, "Leases"), after the organizations
 * migrations; the same append-only rule applies.
 *
 * - gw_lease grows (or opens) one lease: a hold row of this process whose amount is a slice of
 *   the room of an account (and of the key's, account's and member's budgets), taken through
 *   gw_reserve itself so every level is checked exactly as for one request. 1 granted, 0 refused,
 *   -1 the lease's levels no longer match (a budget set or removed since it opened).
 * - gw_lease_shrink gives back part of a lease (NULL: all of it, the row goes).
 * - gw_settle_leased splits a request's part off its lease into a hold of its own and settles it
 *   with gw_settle_tagged, so the charge is computed exactly as for a request held alone; once a
 *   request is in the ledger the split is skipped (settlement stays idempotent).
 * - gw_settle_batch settles many requests in one statement (one round trip, one commit).
 * Every function locks the account's row first, as gw_reserve does, so they queue rather than
 * deadlock. The second entry gives gw_settle_batch its set-based fast path (settle-batch.ts).
 */
import { settleBatchFast } from "./settle-batch.js";

const lease = `
  CREATE FUNCTION gw_lease(p_id text, p_account text, p_amount bigint, p_key text, p_limit bigint, p_since bigint,
      p_member text, p_starts jsonb, p_owner text, p_expires bigint) RETURNS integer LANGUAGE plpgsql AS $fn$
  DECLARE
    g record;
    h record;
  BEGIN
    IF NOT gw_reserve(p_id || ':grow', p_account, p_amount, p_key, p_limit, p_since, p_member, p_starts, p_owner, p_expires) THEN
      RETURN 0;
    END IF;
    DELETE FROM holds WHERE id = p_id || ':grow' RETURNING key_id, account_budget, member_budget INTO g;
    SELECT key_id, account_budget, member_budget INTO h FROM holds WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO holds (id, account, key_id, amount, owner, expires_at, account_budget, member_budget)
        VALUES (p_id, p_account, g.key_id, p_amount, p_owner, p_expires, g.account_budget, g.member_budget);
    ELSIF h.key_id IS DISTINCT FROM g.key_id OR h.account_budget IS DISTINCT FROM g.account_budget OR h.member_budget IS DISTINCT FROM g.member_budget THEN
      PERFORM gw_give_back(p_amount, p_account, g.key_id, g.account_budget, g.member_budget);
      RETURN -1;
    ELSE
      UPDATE holds SET amount = amount + p_amount, expires_at = p_expires WHERE id = p_id;
    END IF;
    RETURN 1;
  END $fn$;`;

const shrink = `
  CREATE FUNCTION gw_lease_shrink(p_id text, p_amount bigint) RETURNS bigint LANGUAGE plpgsql AS $fn$
  DECLARE
    h record;
    v_give bigint;
  BEGIN
    PERFORM 1 FROM accounts WHERE id = (SELECT account FROM holds WHERE id = p_id) FOR UPDATE;
    SELECT account, key_id, amount, account_budget, member_budget INTO h FROM holds WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN RETURN 0; END IF;
    v_give := LEAST(h.amount, COALESCE(p_amount, h.amount));
    IF p_amount IS NULL THEN DELETE FROM holds WHERE id = p_id; ELSE UPDATE holds SET amount = amount - v_give WHERE id = p_id; END IF;
    PERFORM gw_give_back(v_give, h.account, h.key_id, h.account_budget, h.member_budget);
    RETURN v_give;
  END $fn$;`;

const settleLeased = `
  CREATE FUNCTION gw_settle_leased(p_lease text, p_part bigint, p_hold text, e jsonb, p_starts jsonb, p_attempts jsonb) RETURNS bigint LANGUAGE plpgsql AS $fn$
  DECLARE
    h record;
    v_take bigint;
  BEGIN
    PERFORM 1 FROM accounts WHERE id = e->>'account' FOR UPDATE;
    IF p_lease IS NOT NULL THEN
      PERFORM pg_advisory_xact_lock(hashtextextended(e->>'requestId', 7263));
      SELECT account, key_id, amount, owner, expires_at, account_budget, member_budget INTO h FROM holds WHERE id = p_lease FOR UPDATE;
      IF FOUND AND NOT EXISTS (SELECT 1 FROM ledger WHERE request_id = e->>'requestId') THEN
        v_take := LEAST(h.amount, p_part);
        UPDATE holds SET amount = amount - v_take WHERE id = p_lease;
        INSERT INTO holds (id, account, key_id, amount, owner, expires_at, account_budget, member_budget)
          VALUES (p_hold, h.account, h.key_id, v_take, h.owner, h.expires_at, h.account_budget, h.member_budget);
      ELSE
        p_hold := NULL;
      END IF;
    END IF;
    RETURN gw_settle_tagged(p_hold, e, p_starts, p_attempts);
  END $fn$;
  CREATE FUNCTION gw_settle_batch(p_items jsonb) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
  DECLARE
    i jsonb;
    out bigint[] := '{}';
  BEGIN
    FOR i IN SELECT value FROM jsonb_array_elements(p_items) LOOP
      out := out || gw_settle_leased(i->>'lease', (i->>'part')::bigint, i->>'hold', i->'e', i->'starts', i->'attempts');
    END LOOP;
    RETURN out;
  END $fn$;`;

export const leaseMigrations: string[] = [lease + shrink + settleLeased, settleBatchFast];
