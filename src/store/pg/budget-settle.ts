/**
 * Migration: the first settlement of a request (gw_settle_first, called by gw_settle, see
 * settle-once.ts) also settles account and member budgets (docs/limits.md "Budgets"): the
 * charge is the list cost where the balance, the key's budget and every budget level of the
 * key (its account's, its creator's) allow it beyond other requests' holds; the request's own
 * hold is given back on every level it took, and the charge counted in each level's period.
 */
export const budgetSettle = `
  CREATE OR REPLACE FUNCTION gw_settle_first(p_hold text, e jsonb, p_starts jsonb, p_attempts jsonb) RETURNS bigint LANGUAGE plpgsql AS $fn$
  DECLARE
    v_account text := e->>'account';
    v_key text := e->>'keyId';
    v_cost bigint := (e->>'cost')::bigint;
    v_own bigint := 0;
    v_own_key text;
    v_own_key_amount bigint := 0;
    v_ab bigint;
    v_mb bigint;
    v_creator text;
    v_balance bigint;
    v_held bigint;
    v_room bigint;
    v_charge bigint := 0;
    v_start bigint;
    v_key_room bigint;
    v_budgeted boolean := false;
    v_bstart bigint;
    v_own_b bigint;
    k record;
    b record;
  BEGIN
    IF p_hold IS NOT NULL THEN
      DELETE FROM holds WHERE id = p_hold RETURNING amount, key_id, account_budget, member_budget INTO v_own, v_own_key, v_ab, v_mb;
      IF NOT FOUND THEN v_own := 0; v_own_key := NULL; END IF;
    END IF;
    SELECT balance, held INTO v_balance, v_held FROM accounts WHERE id = v_account FOR UPDATE;
    v_room := COALESCE(v_balance, 0) - (COALESCE(v_held, 0) - v_own);
    IF v_own_key IS NOT NULL AND v_own_key = v_key THEN v_own_key_amount := v_own; END IF;
    SELECT budget, budget_period, spent, spent_since, held, created_by INTO k FROM keys WHERE id = v_key FOR UPDATE;
    IF FOUND THEN v_creator := k.created_by; END IF;
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
    FOR b IN SELECT id, amount, period, spent, spent_since, held FROM budgets
        WHERE account = v_account AND (member IS NULL OR member = v_creator) ORDER BY id FOR UPDATE LOOP
      v_bstart := (p_starts->>b.period)::bigint;
      v_own_b := CASE WHEN b.id = v_ab OR b.id = v_mb THEN v_own ELSE 0 END;
      IF b.spent_since > v_bstart THEN
        v_room := LEAST(v_room, v_own_b);
      ELSE
        v_room := LEAST(v_room, b.amount - (CASE WHEN b.spent_since >= v_bstart THEN b.spent ELSE 0 END) - (b.held - v_own_b));
      END IF;
    END LOOP;
    IF v_cost > 0 AND v_room > 0 THEN v_charge := LEAST(v_room, v_cost); END IF;
    UPDATE accounts SET balance = balance - v_charge, held = held - v_own WHERE id = v_account;
    IF v_own_key IS NOT NULL THEN UPDATE keys SET held = held - v_own WHERE id = v_own_key; END IF;
    IF v_ab IS NOT NULL OR v_mb IS NOT NULL THEN UPDATE budgets SET held = held - v_own WHERE id IN (v_ab, v_mb); END IF;
    IF v_charge > 0 AND v_budgeted THEN
      UPDATE keys SET spent = CASE WHEN spent_since = v_start THEN spent + v_charge WHEN spent_since < v_start THEN v_charge ELSE spent END,
        spent_since = GREATEST(spent_since, v_start) WHERE id = v_key;
    END IF;
    IF v_charge > 0 THEN
      UPDATE budgets SET
          spent = CASE WHEN spent_since = (p_starts->>period)::bigint THEN spent + v_charge
                       WHEN spent_since < (p_starts->>period)::bigint THEN v_charge ELSE spent END,
          spent_since = GREATEST(spent_since, (p_starts->>period)::bigint)
        WHERE account = v_account AND (member IS NULL OR member = v_creator);
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
  END $fn$;`;
