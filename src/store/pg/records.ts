/**
 * Keys, BYOK keys and the catalog on PostgreSQL: plain rows. Every write that other processes
 * must see (a new or revoked key, a BYOK key, a `models sync`) sends the change notice in its
 * transaction (watch.ts).
 */
import type pg from "pg";
import type { ByokRecord, CatalogModel, KeyRecord } from "../index.js";
import { fromCatalogRow, toCatalogColumns, type CatalogRow } from "../catalog-row.js";
import { num, query, transaction } from "./db.js";
import { CHANGES_CHANNEL } from "./watch.js";

const KEY_COLUMNS = `id, name, account, hash, last4, created_at, expires_at, revoked_at, last_used_at, rpm, budget, budget_period`;

interface KeyRow {
  id: string;
  name: string;
  account: string;
  hash: string;
  last4: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rpm: number | null;
  budget: string | null;
  budget_period: KeyRecord["budgetPeriod"];
}

const toKey = (r: KeyRow | undefined): KeyRecord | undefined =>
  r && {
    id: r.id,
    name: r.name,
    account: r.account,
    hash: r.hash,
    last4: r.last4,
    createdAt: Number(r.created_at),
    expiresAt: num(r.expires_at),
    revokedAt: num(r.revoked_at),
    lastUsedAt: num(r.last_used_at),
    rpm: r.rpm,
    budget: r.budget === null ? null : BigInt(r.budget),
    budgetPeriod: r.budget_period,
  };

interface ByokRow {
  account: string;
  provider: string;
  secret: Buffer;
  last4: string;
  updated_at: string;
}
const toByok = (r: ByokRow): ByokRecord => ({ account: r.account, provider: r.provider, secret: r.secret, last4: r.last4, updatedAt: Number(r.updated_at) });

const notify = (c: pg.PoolClient) => c.query(`NOTIFY ${CHANGES_CHANNEL}`);

export function pgRecords(pool: pg.Pool) {
  const keys = async (sql: string, values: unknown[]) => (await query<KeyRow>(pool, sql, values)).rows.map((r) => toKey(r)!);
  return {
    createKey: (k: KeyRecord) =>
      transaction(pool, async (c) => {
        await c.query(`INSERT INTO keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, [
          k.id,
          k.name,
          k.account,
          k.hash,
          k.last4,
          k.createdAt,
          k.expiresAt,
          k.revokedAt,
          k.lastUsedAt,
          k.rpm,
          k.budget ?? null,
          k.budgetPeriod ?? "total",
        ]);
        await notify(c);
      }),
    findKeyByHash: async (hash: string) => (await keys(`SELECT ${KEY_COLUMNS} FROM keys WHERE hash = $1`, [hash]))[0],
    findKey: async (idOrName: string) => (await keys(`SELECT ${KEY_COLUMNS} FROM keys WHERE id = $1 OR name = $1`, [idOrName]))[0],
    listKeys: (account?: string) =>
      account === undefined
        ? keys(`SELECT ${KEY_COLUMNS} FROM keys ORDER BY created_at, id`, [])
        : keys(`SELECT ${KEY_COLUMNS} FROM keys WHERE account = $1 ORDER BY created_at, id`, [account]),
    revokeKey: (id: string, at: number) =>
      transaction(pool, async (c) => {
        await c.query("UPDATE keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", [at, id]);
        await notify(c);
      }),
    async touchKeys(lastUsed: Map<string, number>): Promise<void> {
      if (lastUsed.size === 0) return;
      await query(
        pool,
        "UPDATE keys SET last_used_at = t.at FROM unnest($1::text[], $2::bigint[]) AS t(id, at) WHERE keys.id = t.id AND (keys.last_used_at IS NULL OR keys.last_used_at < t.at)",
        [[...lastUsed.keys()], [...lastUsed.values()]],
      );
    },
    async ensureAccount(id: string, at: number): Promise<void> {
      await query(pool, "INSERT INTO accounts (id, balance, created_at) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING", [id, at]);
    },
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
    replaceCatalog: (models: CatalogModel[]) =>
      transaction(pool, async (c) => {
        await c.query("DELETE FROM catalog");
        for (const m of models) {
          const r = toCatalogColumns(m);
          await c.query(
            `INSERT INTO catalog (id, owned_by, prompt_price, completion_price, context_length, max_output, endpoints, source, created)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            [r.id, r.owned_by, r.prompt_price, r.completion_price, r.context_length, r.max_output, r.endpoints, r.source, r.created],
          );
        }
        await notify(c);
      }),
    catalog: async () =>
      (await query<Record<keyof CatalogRow, string | null>>(pool, "SELECT * FROM catalog ORDER BY id")).rows.map((r) =>
        fromCatalogRow({
          id: r.id!,
          owned_by: r.owned_by!,
          prompt_price: num(r.prompt_price),
          completion_price: num(r.completion_price),
          context_length: num(r.context_length),
          max_output: num(r.max_output),
          endpoints: r.endpoints!,
          source: r.source as CatalogModel["source"],
          created: Number(r.created),
        }),
      ),
  };
}
