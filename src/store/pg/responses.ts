/**
 * Stored responses on PostgreSQL (docs/responses.md): the same rows and the same recursive chain
 * query as SQLite (sqlite/responses.ts), never following another account's rows.
 */
import type pg from "pg";
import type { StoredResponse } from "../responses.js";
import { responseFromRow, type ResponseRow } from "../response-row.js";
import { query } from "./db.js";

export function pgResponses(pool: pg.Pool) {
  return {
    async saveResponse(r: StoredResponse): Promise<void> {
      await query(pool, "INSERT INTO responses (id, account, created_at, model, previous_id, items, response) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
        r.id,
        r.account,
        r.createdAt,
        r.model,
        r.previousId,
        JSON.stringify(r.items),
        JSON.stringify(r.response),
      ]);
    },
    async findResponse(id: string, account: string): Promise<StoredResponse | undefined> {
      const { rows } = await query<ResponseRow>(pool, "SELECT * FROM responses WHERE id = $1 AND account = $2", [id, account]);
      return rows[0] && responseFromRow(rows[0]);
    },
    async responseChain(id: string, account: string, limit: { depth: number; bytes: number }): Promise<StoredResponse[]> {
      const { rows } = await query<ResponseRow>(
        pool,
        `WITH RECURSIVE chain(n, bytes, id, previous_id) AS (
          SELECT 1, length(items), id, previous_id FROM responses WHERE id = $1 AND account = $2
          UNION ALL
          SELECT chain.n + 1, chain.bytes + length(r.items), r.id, r.previous_id
          FROM chain JOIN responses r ON r.id = chain.previous_id AND r.account = $2
          WHERE chain.n < $3 AND chain.bytes < $4
        ) SELECT r.* FROM chain JOIN responses r ON r.id = chain.id ORDER BY chain.n DESC`,
        [id, account, limit.depth, limit.bytes],
      );
      return rows.map(responseFromRow);
    },
    async deleteResponse(id: string, account: string): Promise<boolean> {
      return ((await query(pool, "DELETE FROM responses WHERE id = $1 AND account = $2", [id, account])).rowCount ?? 0) > 0;
    },
    async pruneResponses(before: number): Promise<number> {
      return (await query(pool, "DELETE FROM responses WHERE created_at < $1", [before])).rowCount ?? 0;
    },
  };
}
