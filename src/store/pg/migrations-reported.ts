/**
 * Migration: reported usage is the provider's bill (docs/limits.md), as SQLite's last migration.
 * A count a bound cut is kept beside the one billed (null: billed as reported); per-call tool
 * fees (docs/billing.md) as their counts by tool and their part of the list cost; the rollups
 * keep how many requests were billed at a bound and the fees.
 *
 * gw_settle_batch (whatever its current version, kept as gw_settle_batch_rows) writes the rows;
 * the new gw_settle_batch then sets these columns in the same transaction, for the few entries
 * that carry them, so neither the set-based fast path nor gw_settle changes. A settlement
 * repeated for a row already written (settle-once.ts) finds the columns set and leaves them.
 */
export const reportedUsage = `
  ALTER TABLE ledger
    ADD COLUMN reported_prompt_tokens bigint CHECK (reported_prompt_tokens >= 0),
    ADD COLUMN reported_completion_tokens bigint CHECK (reported_completion_tokens >= 0),
    ADD COLUMN tool_calls jsonb,
    ADD COLUMN reported_tool_calls jsonb,
    ADD COLUMN tool_cost bigint NOT NULL DEFAULT 0 CHECK (tool_cost >= 0);
  ALTER TABLE usage_daily
    ADD COLUMN bounded bigint NOT NULL DEFAULT 0,
    ADD COLUMN tool_cost bigint NOT NULL DEFAULT 0;
  ALTER FUNCTION gw_settle_batch(jsonb) RENAME TO gw_settle_batch_rows;
  CREATE FUNCTION gw_settle_batch(p_items jsonb) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
  DECLARE v_out bigint[];
  BEGIN
    v_out := gw_settle_batch_rows(p_items);
    UPDATE ledger l SET
        reported_prompt_tokens = (f.e->>'reportedPromptTokens')::bigint,
        reported_completion_tokens = (f.e->>'reportedCompletionTokens')::bigint,
        tool_calls = CASE WHEN jsonb_typeof(f.e->'toolCalls') = 'object' THEN f.e->'toolCalls' END,
        reported_tool_calls = CASE WHEN jsonb_typeof(f.e->'reportedToolCalls') = 'object' THEN f.e->'reportedToolCalls' END,
        tool_cost = COALESCE((f.e->>'toolCost')::bigint, 0)
      FROM (SELECT x->'e' AS e FROM jsonb_array_elements(p_items) x
            WHERE jsonb_typeof(x->'e'->'reportedPromptTokens') = 'number' OR jsonb_typeof(x->'e'->'toolCalls') = 'object') f
      WHERE l.request_id = f.e->>'requestId' AND l.reported_prompt_tokens IS NULL AND l.tool_calls IS NULL;
    RETURN v_out;
  END $fn$;`;
