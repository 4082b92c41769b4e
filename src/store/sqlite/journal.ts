/**
 * The SQLite side of the in-flight journal (src/billing/journal.ts): one table rewritten whole every
 * few seconds by the one process that owns the file. The ids journaled are remembered, so a
 * settlement deletes a row only when there is one (no extra statement for short requests).
 */
import type Database from "better-sqlite3";
import { writeTransaction } from "./tx.js";
import type { InflightRow } from "../journal.js";

export function sqliteJournal(db: Database.Database) {
  const s = {
    clear: db.prepare("DELETE FROM inflight"),
    insert: db.prepare(`INSERT INTO inflight (request_id, created_at, account, key_id, model, provider, prompt_tokens, completion_tokens, list_cost, byok)
      VALUES (@requestId, @createdAt, @account, @keyId, @model, @provider, @promptTokens, @completionTokens, @listCost, @byok)`),
    drop: db.prepare("DELETE FROM inflight WHERE request_id = ?"),
    all: db.prepare(`SELECT request_id AS requestId, created_at AS createdAt, account, key_id AS keyId, model, provider,
      prompt_tokens AS promptTokens, completion_tokens AS completionTokens, list_cost AS listCost, byok FROM inflight`),
  };
  const journaled = new Set<string>();

  const replace = writeTransaction(db, (rows: InflightRow[]) => {
    s.clear.run();
    journaled.clear();
    for (const r of rows) {
      s.insert.run({ ...r, byok: r.byok ? 1 : 0 });
      journaled.add(r.requestId);
    }
  });

  return {
    journalInflight: (rows: InflightRow[]) => {
      if (rows.length || journaled.size) replace(rows);
    },
    leftInflight: (): InflightRow[] => {
      const rows = (s.all.all() as Array<Omit<InflightRow, "byok"> & { byok: number }>).map((r) => ({ ...r, byok: r.byok === 1 }));
      for (const r of rows) journaled.add(r.requestId);
      return rows;
    },
    /** Inside the settlement's transaction. */
    settled(requestId: string): void {
      if (journaled.delete(requestId)) s.drop.run(requestId);
    },
  };
}
