/** BYOK keys on PostgreSQL: a write sends the change notice in its transaction (watch.ts). */
import type pg from "pg";
import type { ByokRecord } from "../byok.js";
import { query, transaction } from "./db.js";
import { notify } from "./watch.js";

interface ByokRow {
  account: string;
  provider: string;
  secret: Buffer;
  last4: string;
  updated_at: string;
}
const toByok = (r: ByokRow): ByokRecord => ({ account: r.account, provider: r.provider, secret: r.secret, last4: r.last4, updatedAt: Number(r.updated_at) });

export function pgByok(pool: pg.Pool) {
  return {
    setByok: (r: ByokRecord) =>
      transaction(pool, async (c) => {
        await c.query(
          `INSERT INTO byok_keys (account, provider, secret, last4, updated_at) VALUES ($1, $2, $3, $4, $5)
          ON CONFLICT (account, provider) DO UPDATE SET secret = excluded.secret, last4 = excluded.last4, updated_at = excluded.updated_at`,
          [r.account, r.provider, r.secret, r.last4, r.updatedAt],
        );
        await notify(c);
      }),
    listByok: async (account?: string) =>
      (account === undefined
        ? await query<ByokRow>(pool, "SELECT * FROM byok_keys ORDER BY account, provider")
        : await query<ByokRow>(pool, "SELECT * FROM byok_keys WHERE account = $1 ORDER BY provider", [account])
      ).rows.map(toByok),
    removeByok: (account: string, provider: string) =>
      transaction(pool, async (c) => {
        const r = await c.query("DELETE FROM byok_keys WHERE account = $1 AND provider = $2", [account, provider]);
        await notify(c);
        return (r.rowCount ?? 0) > 0;
      }),
  };
}
