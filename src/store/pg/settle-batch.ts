/**
 * Migration: the set-based fast path of gw_settle_batch (docs/fleet.md, "Group commit"). The
 * common settlement is a request admitted against a lease of an account without budgets (nor a
 * key budget), charged no more than its part of the lease, with no failover attempts to log: its
 * charge is its cost whatever else is held (the part it gives back covers it, and the balance
 * covers every hold), so a whole batch of them is three set-based statements (the leases, the
 * accounts, the ledger) instead of a dozen statements each. Everything else (budgets, a charge
 * beyond the part, an expired lease, a request already in the ledger) settles one by one through
 * gw_settle_leased, exactly as before. Accounts are locked first, in id order, then the requests'
 * advisory locks (settle-once.ts), as in every other settlement.
 */
export const settleBatchFast = `
  CREATE OR REPLACE FUNCTION gw_settle_batch(p_items jsonb) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
  DECLARE
    v_fast bigint[];
    v_out bigint[] := '{}';
    r record;
  BEGIN
    PERFORM 1 FROM accounts WHERE id IN (SELECT x->'e'->>'account' FROM jsonb_array_elements(p_items) x) ORDER BY id FOR UPDATE;
    PERFORM pg_advisory_xact_lock(s.h)
      FROM (SELECT DISTINCT hashtextextended(x->'e'->>'requestId', 7263) AS h FROM jsonb_array_elements(p_items) x ORDER BY 1) s;
    v_fast := ARRAY(
      SELECT c.ord FROM (
        SELECT t.ord, h.amount, SUM((t.x->>'part')::bigint) OVER (PARTITION BY h.id) AS parts,
          COUNT(*) OVER (PARTITION BY t.x->'e'->>'requestId') AS copies
        FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(x, ord)
        JOIN holds h ON h.id = t.x->>'lease'
        JOIN accounts a ON a.id = t.x->'e'->>'account'
        LEFT JOIN keys k ON k.id = t.x->'e'->>'keyId'
        WHERE h.account = a.id AND h.key_id IS NULL AND h.account_budget IS NULL AND h.member_budget IS NULL
          AND (t.x->'e'->>'cost')::bigint BETWEEN 0 AND (t.x->>'part')::bigint
          AND jsonb_array_length(t.x->'attempts') = 0
          AND a.balance >= a.held
          AND k.budget IS NULL
          AND NOT EXISTS (SELECT 1 FROM budgets b WHERE b.account = a.id)
          AND NOT EXISTS (SELECT 1 FROM ledger l WHERE l.request_id = t.x->'e'->>'requestId')
      ) c WHERE c.parts <= c.amount AND c.copies = 1);
    IF cardinality(v_fast) > 0 THEN
      UPDATE holds h SET amount = h.amount - s.part
        FROM (SELECT x->>'lease' AS lease, SUM((x->>'part')::bigint) AS part
              FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(x, ord) WHERE ord = ANY(v_fast) GROUP BY 1) s
        WHERE h.id = s.lease;
      UPDATE accounts a SET balance = a.balance - s.cost, held = a.held - s.part
        FROM (SELECT x->'e'->>'account' AS account, SUM((x->'e'->>'cost')::bigint) AS cost, SUM((x->>'part')::bigint) AS part
              FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(x, ord) WHERE ord = ANY(v_fast) GROUP BY 1) s
        WHERE a.id = s.account;
      INSERT INTO ledger (request_id, created_at, account, key_id, model, provider, prompt_tokens, completion_tokens, cost, list_cost,
          byok, usage_source, status, http_status, latency_ms, attempts, endpoint, uncollected, tags)
        SELECT e->>'requestId', (e->>'createdAt')::bigint, e->>'account', e->>'keyId', e->>'model', e->>'provider', (e->>'promptTokens')::bigint,
          (e->>'completionTokens')::bigint, (e->>'cost')::bigint, (e->>'listCost')::bigint, (e->>'byok')::boolean, e->>'usageSource', e->>'status',
          (e->>'httpStatus')::integer, (e->>'latencyMs')::bigint, (e->>'attempts')::integer, COALESCE(e->>'endpoint', 'chat'), 0,
          CASE WHEN jsonb_typeof(e->'tags') = 'object' THEN e->'tags' END
        FROM (SELECT x->'e' AS e FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(x, ord) WHERE ord = ANY(v_fast) ORDER BY ord) f;
      DELETE FROM inflight WHERE request_id IN
        (SELECT x->'e'->>'requestId' FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(x, ord) WHERE ord = ANY(v_fast));
    END IF;
    FOR r IN SELECT t.ord, t.x FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(x, ord) ORDER BY t.ord LOOP
      IF r.ord = ANY(v_fast) THEN
        v_out := v_out || (r.x->'e'->>'cost')::bigint;
      ELSE
        v_out := v_out || gw_settle_leased(r.x->>'lease', (r.x->>'part')::bigint, r.x->>'hold', r.x->'e', r.x->'starts', r.x->'attempts');
      END IF;
    END LOOP;
    RETURN v_out;
  END $fn$;`;
