/**
 * Keys on PostgreSQL: plain rows. Every write other processes must see (a new, changed or revoked
 * key) sends the change notice in its transaction (watch.ts).
 */
import type pg from "pg";
import { pickKey, type KeyChanges, type KeyRecord } from "../keys.js";
import { recount } from "./key-budgets.js";
import { num, query, transaction } from "./db.js";
import { CHANGES_CHANNEL, notify } from "./watch.js";

const KEY_COLUMNS = `id, name, account, hash, last4, created_at, expires_at, revoked_at, last_used_at, rpm, budget, budget_period, cache, created_by, limits_by_manager, mcp, guardrails`;

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
  cache: NonNullable<KeyRecord["cache"]>;
  created_by: string | null;
  limits_by_manager: boolean;
  mcp: string[] | null;
  guardrails: KeyRecord["guardrails"];
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
    cache: r.cache,
    createdBy: r.created_by,
    limitsByManager: r.limits_by_manager,
    mcp: r.mcp,
    guardrails: r.guardrails,
  };

export function pgKeys(pool: pg.Pool) {
  const keys = async (sql: string, values: unknown[]) => (await query<KeyRow>(pool, sql, values)).rows.map((r) => toKey(r)!);
  return {
    createKey: (k: KeyRecord) =>
      transaction(pool, async (c) => {
        await c.query(`INSERT INTO keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`, [
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
          k.cache ?? "off",
          k.createdBy ?? null,
          k.limitsByManager ?? false,
          k.mcp?.length ? JSON.stringify(k.mcp) : null,
          k.guardrails ?? null,
        ]);
        await notify(c);
      }),
    findKeyByHash: async (hash: string) => (await keys(`SELECT ${KEY_COLUMNS} FROM keys WHERE hash = $1`, [hash]))[0],
    findKey: async (idOrName: string, account?: string) =>
      pickKey(
        idOrName,
        await keys(`SELECT ${KEY_COLUMNS} FROM keys WHERE (id = $1 OR name = $1) AND ($2::text IS NULL OR account = $2) ORDER BY id = $1 DESC LIMIT 3`, [
          idOrName,
          account ?? null,
        ]),
      ),
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
    updateKey: (id: string, changes: KeyChanges, at: number) =>
      transaction(pool, async (c) => {
        const set: string[] = [];
        const values: unknown[] = [id];
        const put = (column: string, value: unknown) => set.push(`${column} = $${values.push(value)}`);
        if (changes.budget !== undefined) put("budget", changes.budget);
        if (changes.budgetPeriod !== undefined) put("budget_period", changes.budgetPeriod);
        if (changes.rpm !== undefined) put("rpm", changes.rpm);
        if (changes.expiresAt !== undefined) put("expires_at", changes.expiresAt);
        if (changes.cache !== undefined) put("cache", changes.cache);
        if (changes.guardrails !== undefined) put("guardrails", changes.guardrails);
        if (changes.limitsByManager !== undefined) put("limits_by_manager", changes.limitsByManager);
        if (changes.mcp !== undefined) put("mcp", changes.mcp?.length ? JSON.stringify(changes.mcp) : null);
        if (set.length) await c.query(`UPDATE keys SET ${set.join(", ")} WHERE id = $1`, values);
        if (changes.budget !== undefined || changes.budgetPeriod !== undefined) await recount(c, id, at);
        await c.query(`NOTIFY ${CHANGES_CHANNEL}`);
      }),
  };
}
