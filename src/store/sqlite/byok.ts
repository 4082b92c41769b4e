/** BYOK keys on SQLite: one row per account and provider, the key sealed (src/access/byok.ts). */
import type Database from "better-sqlite3";
import type { ByokRecord } from "../byok.js";

export function sqliteByok(db: Database.Database) {
  const s = {
    upsertByok: db.prepare(`INSERT INTO byok_keys (account, provider, secret, last4, updated_at)
      VALUES (@account, @provider, @secret, @last4, @updatedAt)
      ON CONFLICT (account, provider) DO UPDATE SET secret = excluded.secret, last4 = excluded.last4, updated_at = excluded.updated_at`),
    listByok: db.prepare("SELECT account, provider, secret, last4, updated_at AS updatedAt FROM byok_keys WHERE account = ? ORDER BY provider"),
    allByok: db.prepare("SELECT account, provider, secret, last4, updated_at AS updatedAt FROM byok_keys ORDER BY account, provider"),
    removeByok: db.prepare("DELETE FROM byok_keys WHERE account = ? AND provider = ?"),
  };
  return {
    setByok: (r: ByokRecord) => void s.upsertByok.run(r),
    listByok: (account?: string) => (account === undefined ? s.allByok.all() : s.listByok.all(account)) as ByokRecord[],
    removeByok: (account: string, provider: string) => s.removeByok.run(account, provider).changes > 0,
  };
}
