/**
 * The in-flight journal on PostgreSQL (src/billing/journal.ts): each process rewrites only its own
 * rows. At start a process claims the rows of processes whose lease has lapsed (DELETE ...
 * RETURNING: each row is claimed once, however many processes start together) and settles
 * them for what they had delivered.
 */
import type pg from "pg";
import type { InflightRow } from "../journal.js";
import { query, transaction } from "./db.js";

interface Row {
  request_id: string;
  created_at: string;
  account: string;
  key_id: string;
  model: string;
  provider: string | null;
  prompt_tokens: string;
  completion_tokens: string;
  list_cost: string;
  byok: boolean;
}

export function pgJournal(pool: pg.Pool, owner: string, leaseMs: number, now: () => number = Date.now) {
  return {
    journalInflight: (rows: InflightRow[]) =>
      transaction(pool, async (c) => {
        await c.query("DELETE FROM inflight WHERE owner = $1", [owner]);
        if (rows.length === 0) return;
        await c.query(
          `INSERT INTO inflight (request_id, owner, created_at, account, key_id, model, provider, prompt_tokens, completion_tokens, list_cost, byok)
          SELECT r."requestId", $2, r."createdAt", r.account, r."keyId", r.model, r.provider, r."promptTokens", r."completionTokens", r."listCost", r.byok
          FROM jsonb_to_recordset($1::jsonb) AS r("requestId" text, "createdAt" bigint, account text, "keyId" text, model text, provider text,
            "promptTokens" bigint, "completionTokens" bigint, "listCost" bigint, byok boolean)
          ON CONFLICT (request_id) DO NOTHING`,
          [JSON.stringify(rows), owner],
        );
      }),
    async leftInflight(): Promise<InflightRow[]> {
      const { rows } = await query<Row>(
        pool,
        `DELETE FROM inflight WHERE owner <> $1 AND owner NOT IN (SELECT id FROM instances WHERE seen_at >= $2) RETURNING *`,
        [owner, now() - leaseMs],
      );
      return rows.map((r) => ({
        requestId: r.request_id,
        createdAt: Number(r.created_at),
        account: r.account,
        keyId: r.key_id,
        model: r.model,
        provider: r.provider,
        promptTokens: Number(r.prompt_tokens),
        completionTokens: Number(r.completion_tokens),
        listCost: Number(r.list_cost),
        byok: r.byok,
      }));
    },
  };
}
