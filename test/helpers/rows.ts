/**
 * Reads a gateway's tables directly, whichever store it has: a SQLite file (better-sqlite3,
 * read-only) or a PostgreSQL URL. Rows come back as SQLite gives them (integers as numbers,
 * booleans as 0/1, JSON as text), so assertions are the same on both. `?` placeholders, as SQLite writes them.
 */
import Database from "better-sqlite3";
import pg from "pg";

const INT8 = 20;
const BOOL = 16;
const JSONB = 3802;

export async function rows<T>(db: string, sql: string, ...params: unknown[]): Promise<T[]> {
  if (!/^postgres(ql)?:\/\//.test(db)) {
    const conn = new Database(db, { readonly: true });
    try {
      return conn.prepare(sql).all(...params) as T[];
    } finally {
      conn.close();
    }
  }
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    let n = 0;
    const result = await client.query(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    );
    const convert = new Map(result.fields.map((f) => [f.name, f.dataTypeID]));
    return result.rows.map((r: Record<string, unknown>) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) {
        const type = convert.get(k);
        out[k] = v === null ? null : type === INT8 ? Number(v) : type === BOOL ? (v ? 1 : 0) : type === JSONB ? JSON.stringify(v) : v;
      }
      return out as T;
    });
  } finally {
    await client.end();
  }
}
