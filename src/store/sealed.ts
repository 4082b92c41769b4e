/**
 * Every value the store keeps sealed with the gateway's secret (AES-256-GCM, src/access/sealed.ts
 * opens and seals them), and a read-only look at them: `serve` and `doctor` say when the current
 * secret cannot open some (docs/cli.md), `gateway db copy` re-seals them under the target's
 * secret (docs/fleet.md). A new sealed column belongs in SEALED, or a copy would carry it
 * unreadable and no check would say so.
 */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { isPostgresUrl } from "../core/database-url.js";

export type SealedKind = "byok" | "webhook" | "mcp";

/** A sealed value and the row fields bound into its ciphertext (a BYOK key: account and provider; a webhook secret: its id; MCP headers: the server's name). */
export interface SealedRow {
  kind: SealedKind;
  owner: string[];
  sealed: Buffer;
}

export const SEALED: ReadonlyArray<{ kind: SealedKind; table: string; owner: readonly string[]; column: string }> = [
  { kind: "byok", table: "byok_keys", owner: ["account", "provider"], column: "secret" },
  { kind: "webhook", table: "alert_webhooks", owner: ["id"], column: "secret" },
  // The headers of an MCP server added with `gateway mcp add` (docs/mcp.md); null when it has none.
  { kind: "mcp", table: "mcp_servers", owner: ["name"], column: "headers" },
];

const select = (s: (typeof SEALED)[number]) =>
  `SELECT ${[...s.owner, s.column].join(", ")} FROM ${s.table} WHERE ${s.column} IS NOT NULL ORDER BY ${s.owner.join(", ")}`;

const rowOf = (s: (typeof SEALED)[number], r: Record<string, unknown>): SealedRow => ({
  kind: s.kind,
  owner: s.owner.map((c) => String(r[c])),
  sealed: r[s.column] as Buffer,
});

/** The sealed values of an open SQLite database (a table an older schema lacks has none). */
export function sqliteSealedRows(db: Database.Database): SealedRow[] {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
  return SEALED.flatMap((s) => (has.get(s.table) ? (db.prepare(select(s)).all() as Array<Record<string, unknown>>).map((r) => rowOf(s, r)) : []));
}

/** The sealed values of a database, read only: a SQLite file that does not exist yet, or `:memory:`, has none. */
export async function readSealed(database: string): Promise<SealedRow[]> {
  if (isPostgresUrl(database)) return pgSealedRows(database);
  if (database === ":memory:" || !existsSync(database)) return [];
  const db = new Database(database, { readonly: true, fileMustExist: true });
  try {
    return sqliteSealedRows(db);
  } finally {
    db.close();
  }
}

async function pgSealedRows(url: string): Promise<SealedRow[]> {
  const { createPool } = await import("./pg/db.js");
  const pool = createPool(url, 1);
  try {
    const rows: SealedRow[] = [];
    for (const s of SEALED) {
      const exists = await pool.query<{ t: string | null }>("SELECT to_regclass($1) AS t", [s.table]);
      if (exists.rows[0]?.t) rows.push(...(await pool.query<Record<string, unknown>>(select(s))).rows.map((r) => rowOf(s, r)));
    }
    return rows;
  } finally {
    await pool.end();
  }
}
