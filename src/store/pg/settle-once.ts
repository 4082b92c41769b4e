/**
 * Migration: settlement is idempotent by request id (docs/fleet.md, "Settlement that fails").
 * A stream's settlement is retried until it lands, and a retry may follow an attempt that did
 * commit (its answer lost with the connection); a journal row may also be settled by another
 * process while its own process, frozen past its lease, settles it too. So gw_settle takes a
 * transaction-level advisory lock on the request id, and when a ledger row for it exists it only
 * releases the hold it was given and drops the journal row: the charge stays the one recorded.
 * The first version is kept as gw_settle_first and called for the first settlement.
 */
export const settleOnce = `
  CREATE INDEX ledger_request ON ledger(request_id);
  ALTER FUNCTION gw_settle(text, jsonb, jsonb, jsonb) RENAME TO gw_settle_first;
  CREATE FUNCTION gw_settle(p_hold text, e jsonb, p_starts jsonb, p_attempts jsonb) RETURNS bigint LANGUAGE plpgsql AS $fn$
   DECLARE
     v_charged bigint;
     v_own bigint;
     v_own_key text;
   BEGIN
     PERFORM pg_advisory_xact_lock(hashtextextended(e->>'requestId', 7263));
     SELECT cost INTO v_charged FROM ledger WHERE request_id = e->>'requestId' LIMIT 1;
     IF NOT FOUND THEN
       RETURN gw_settle_first(p_hold, e, p_starts, p_attempts);
     END IF;
     IF p_hold IS NOT NULL THEN
       DELETE FROM holds WHERE id = p_hold RETURNING amount, key_id INTO v_own, v_own_key;
       IF FOUND THEN
         UPDATE accounts SET held = held - v_own WHERE id = e->>'account';
         IF v_own_key IS NOT NULL THEN UPDATE keys SET held = held - v_own WHERE id = v_own_key; END IF;
       END IF;
     END IF;
     DELETE FROM inflight WHERE request_id = e->>'requestId';
     RETURN v_charged;
   END $fn$;`;
