/** A stored response as a table row, the same on SQLite and PostgreSQL (whose bigint time arrives as a string). */
import type { StoredResponse } from "./index.js";

export interface ResponseRow {
  id: string;
  account: string;
  created_at: number | string;
  model: string;
  previous_id: string | null;
  items: string;
  response: string;
}

export const responseFromRow = (r: ResponseRow): StoredResponse => ({
  id: r.id,
  account: r.account,
  createdAt: Number(r.created_at),
  model: r.model,
  previousId: r.previous_id,
  items: JSON.parse(r.items) as unknown[],
  response: JSON.parse(r.response) as unknown,
});
