/**
 * Stored responses on SQLite (POST /v1/responses with `store`, docs/responses.md): one row per
 * response, its own items as JSON and a link to the response it continued. A chain is read
 * in one recursive query that only ever follows rows of the same account.
 */
import type Database from "better-sqlite3";
import type { StoredResponse } from "../responses.js";
import { responseFromRow, type ResponseRow } from "../response-row.js";

export function sqliteResponses(db: Database.Database) {
  const s = {
    insert: db.prepare(`INSERT INTO responses (id, account, created_at, model, previous_id, items, response)
      VALUES (@id, @account, @createdAt, @model, @previousId, @items, @response)`),
    find: db.prepare("SELECT * FROM responses WHERE id = ? AND account = ?"),
    remove: db.prepare("DELETE FROM responses WHERE id = ? AND account = ?"),
    // Newest first from `id`, following previous_id within the account, until `depth` rows or
    // `bytes` of items are read (the row that crosses the byte bound is the last one).
    chain: db.prepare(`WITH RECURSIVE chain(n, bytes, id, previous_id) AS (
        SELECT 1, length(items), id, previous_id FROM responses WHERE id = @id AND account = @account
        UNION ALL
        SELECT chain.n + 1, chain.bytes + length(r.items), r.id, r.previous_id
        FROM chain JOIN responses r ON r.id = chain.previous_id AND r.account = @account
        WHERE chain.n < @depth AND chain.bytes < @bytes
      ) SELECT r.* FROM chain JOIN responses r ON r.id = chain.id ORDER BY chain.n DESC`),
    prune: db.prepare("DELETE FROM responses WHERE created_at < ?"),
  };
  return {
    saveResponse: async (r: StoredResponse) => void s.insert.run({ ...r, items: JSON.stringify(r.items), response: JSON.stringify(r.response) }),
    findResponse: async (id: string, account: string) => {
      const row = s.find.get(id, account) as ResponseRow | undefined;
      return row && responseFromRow(row);
    },
    responseChain: async (id: string, account: string, limit: { depth: number; bytes: number }) =>
      (s.chain.all({ id, account, ...limit }) as ResponseRow[]).map(responseFromRow),
    deleteResponse: async (id: string, account: string) => s.remove.run(id, account).changes > 0,
    pruneResponses: (before: number) => s.prune.run(before).changes,
  };
}
