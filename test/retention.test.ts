/**
 * Retention (issue 10, item 13): ledger rows past `retention.days` are folded into daily
 * rollups and deleted; usage totals, balances and "credited = balance + charged" stay exact.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { summarize } from "../src/operations/usage-summary.js";
import { DAY_MS, pruneAll, retentionCutoff } from "../src/operations/retention.js";
import type { Attempt, LedgerEntry, Store } from "../src/store/index.js";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { FAST_RETRY, useGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";

const MODEL = "openai/gpt-4o-mini";
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function entry(at: number, account: string, keyId: string, o: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    requestId: `req_${randomUUID()}`,
    createdAt: at,
    account,
    keyId,
    model: MODEL,
    provider: "openai",
    promptTokens: 12,
    completionTokens: 5,
    cost: 4_800,
    listCost: 4_800,
    byok: false,
    usageSource: "provider",
    status: "ok",
    httpStatus: 200,
    latencyMs: 9,
    attempts: 1,
    ...o,
  };
}

const failover = (e: LedgerEntry): Attempt[] => [
  { requestId: e.requestId, createdAt: e.createdAt, provider: "openai", model: "gpt-4o-mini", outcome: "http_503", httpStatus: 503, latencyMs: 3 },
  { requestId: e.requestId, createdAt: e.createdAt, provider: "openai", model: "gpt-4o-mini", outcome: "success", httpStatus: 200, latencyMs: 6 },
];

/** Old rows, written through the store as settlements are; returns how many are older than `cutoff`. */
async function seedOld(store: Store, account: string, keyId: string, cutoff: number): Promise<number> {
  const d1 = cutoff - 10 * DAY_MS + 3_600_000; // 01:00 UTC, ten days past the retention
  const d2 = cutoff - 5 * DAY_MS + 79_200_000; // 22:00 UTC, five days past
  const slow = entry(d1 + 60_000, account, keyId, { cost: 1_000_000_001, promptTokens: 1_000, completionTokens: 2_000, attempts: 2 });
  const rows: Array<[LedgerEntry, Attempt[]]> = [
    [entry(d1, account, keyId, { cost: 4_801 }), []],
    [entry(d1 + 1, account, keyId, { cost: 7, promptTokens: 3, completionTokens: 0, status: "cancelled", usageSource: "estimated" }), []],
    [slow, failover(slow)],
    [entry(d1 + 2, account, keyId, { cost: 0, listCost: 4_800, byok: true }), []],
    [entry(d2, account, keyId, { model: "openai/tiny-price", cost: 1, listCost: 1, promptTokens: 40, completionTokens: 0 }), []],
    [entry(cutoff - 1, account, keyId), []],
  ];
  for (const [e, attempts] of rows) await store.settle(null, e, attempts);
  await store.settle(null, entry(cutoff, account, keyId, { cost: 13 }), []); // on the boundary: kept
  return rows.length;
}

/** Everything retention must not change. Money straight from SQLite as BigInt. */
async function snapshot(store: Store, file: string, accounts: string[]) {
  const db = new Database(file, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    const one = (sql: string) => db.prepare(sql).pluck().get() as bigint;
    return {
      usage: summarize(await store.usage({})),
      perAccount: await Promise.all(accounts.map(async (a) => summarize(await store.usage({ account: a })))),
      balances: await Promise.all(accounts.map((a) => store.balance(a))),
      credited: one("SELECT COALESCE(SUM(amount), 0) FROM credit_grants"),
      charged: one("SELECT COALESCE(SUM(cost), 0) FROM ledger") + one("SELECT COALESCE(SUM(cost), 0) FROM usage_daily"),
      balanceSum: one("SELECT COALESCE(SUM(balance), 0) FROM accounts"),
    };
  } finally {
    db.close();
  }
}

function query<T>(file: string, sql: string, ...args: unknown[]): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all(...args) as T[];
  } finally {
    db.close();
  }
}

describe("prune through the store, next to real requests", () => {
  const h = useGateway(
    (fakeUrl) => ({
      providers: { openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-platform-key-0001" } },
      models: [{ id: MODEL, pricing: { prompt: "0.15", completion: "0.6" }, max_output: 16384, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
      retry: FAST_RETRY,
    }),
    { fallback: () => completion("ok", { prompt_tokens: 12, completion_tokens: 5 }) },
  );

  test("old rows become daily rollups in one step: usage, balances and credited = balance + charged unchanged, to the nano-USD", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await h.post({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 10 }, bearer(h.key));
      expect(res.status).toBe(200);
    }
    // A second account whose charges sum past 2^53 nano-USD: only BigInt sums stay exact.
    await h.gw.createKey({ account: "whale" });
    await h.gw.store.addCredits("whale", 2n ** 60n, Date.now());
    const [whaleKey] = await h.gw.store.listKeys("whale");
    const [key] = await h.gw.store.listKeys("default");
    const now = Date.now();
    const cutoff = retentionCutoff(now, 90);
    const old = await seedOld(h.gw.store, "default", key!.id, cutoff);
    await h.gw.store.settle(null, entry(cutoff - 20 * DAY_MS, "whale", whaleKey!.id, { cost: MAX_SAFE, listCost: MAX_SAFE }), []);
    await h.gw.store.settle(null, entry(cutoff - 20 * DAY_MS + 1, "whale", whaleKey!.id, { cost: MAX_SAFE, listCost: MAX_SAFE }), []);

    const accounts = ["default", "whale"];
    const before = await snapshot(h.gw.store, h.gw.db, accounts);
    expect(before.credited).toBe(before.balanceSum + before.charged);
    expect(before.perAccount[1]!.cost).toBe("18014398.509481982"); // 2 × (2^53 − 1) nano-USD

    const result = await pruneAll(h.gw.store, cutoff);
    expect(result).toEqual({ rows: old + 2, attempts: 2, rollups: 5 });
    expect(await snapshot(h.gw.store, h.gw.db, accounts)).toEqual(before);

    // Left: the three real requests and the boundary row; nothing older than the cutoff.
    const left = query<{ created_at: number }>(h.gw.db, "SELECT created_at FROM ledger");
    expect(left).toHaveLength(4);
    expect(left.every((r) => r.created_at >= cutoff)).toBe(true);
    expect(query(h.gw.db, "SELECT * FROM attempts")).toEqual([]);
    // Day one: three platform requests in one rollup, the BYOK one in its own.
    const day1 = cutoff - 10 * DAY_MS;
    expect(query(h.gw.db, "SELECT * FROM usage_daily WHERE day = ? ORDER BY byok", day1)).toEqual([
      {
        day: day1,
        account: "default",
        key_id: key!.id,
        model: MODEL,
        byok: 0,
        endpoint: "chat",
        requests: 3,
        prompt_tokens: 1_015,
        completion_tokens: 2_005,
        cost: 1_000_004_809,
        list_cost: 14_400,
        uncollected: 0,
        cache_hits: 0,
        cache_saved: 0,
        bounded: 0,
        tool_cost: 0,
      },
      {
        day: day1,
        account: "default",
        key_id: key!.id,
        model: MODEL,
        byok: 1,
        endpoint: "chat",
        requests: 1,
        prompt_tokens: 12,
        completion_tokens: 5,
        cost: 0,
        list_cost: 4_800,
        uncollected: 0,
        cache_hits: 0,
        cache_saved: 0,
        bounded: 0,
        tool_cost: 0,
      },
    ]);

    // Again: nothing left to do, nothing changes.
    expect(await pruneAll(h.gw.store, cutoff)).toEqual({ rows: 0, attempts: 0, rollups: 0 });
    expect(await snapshot(h.gw.store, h.gw.db, accounts)).toEqual(before);
  });

  test("usage --since counts a rolled-up day when the day starts at or after it", async () => {
    const cutoff = retentionCutoff(Date.now(), 90);
    const total = async (since: number) => summarize(await h.gw.store.usage({ account: "default", since })).requests;
    // Day two (five days past the retention) holds one request; day one (ten days) four.
    expect(await total(cutoff - 5 * DAY_MS)).toBe((await total(cutoff)) + 2); // day two and the row just before the cutoff
    expect(await total(cutoff - 5 * DAY_MS + 1)).toBe((await total(cutoff)) + 1);
    expect(await total(cutoff - 10 * DAY_MS)).toBe((await total(cutoff)) + 6);
  });
});

describe("gateway db prune and serve (child processes)", () => {
  const run = (dir: string, db: string, ...args: string[]) => gateway(["--db", db, ...args], { cwd: dir });

  /** A database made by the CLI, with a key, credits and old rows settled through the store. */
  async function oldDatabase(): Promise<{ dir: string; db: string; old: number }> {
    assertBuilt();
    const dir = tempDir();
    const db = join(dir, "g.db");
    const created = await run(dir, db, "keys", "create", "--name", "app", "--json");
    expect(created.exitCode).toBe(0);
    expect((await run(dir, db, "credits", "add", "5.000000001", "--json")).exitCode).toBe(0);
    const store = openSqliteStore(db);
    try {
      const cutoff = retentionCutoff(Date.now(), 90);
      // A day back, so midnight between here and the child cannot move the cutoff past a row:
      // every seeded row is old for the child, the boundary one included.
      const old = await seedOld(store, "default", created.json.id as string, cutoff - DAY_MS);
      await store.settle(null, entry(Date.now(), "default", created.json.id as string, { cost: 5 }), []);
      return { dir, db, old: old + 1 };
    } finally {
      await store.close();
    }
  }

  test("db prune --json prints the counts; usage and credits show are the same before and after; a second prune does nothing", async () => {
    const { dir, db, old } = await oldDatabase();
    const usage = await run(dir, db, "usage", "--json");
    const credits = await run(dir, db, "credits", "show", "--json");
    expect(usage.json).toMatchObject({ requests: old + 1, cost: "1.000009628" });

    const pruned = await run(dir, db, "db", "prune", "--json");
    expect(pruned.exitCode).toBe(0);
    expect(pruned.json).toMatchObject({ days: 90, rows: old, attempts: 2, rollups: 5 });
    expect(Date.parse(pruned.json.before) % DAY_MS).toBe(0);
    expect((await run(dir, db, "usage", "--json")).json).toEqual(usage.json);
    expect((await run(dir, db, "credits", "show", "--json")).json).toEqual(credits.json);
    expect(query(db, "SELECT COUNT(*) AS n FROM ledger")).toEqual([{ n: 1 }]);

    expect((await run(dir, db, "db", "prune", "--json")).json).toMatchObject({ rows: 0, attempts: 0, rollups: 0 });
    // --days overrides the config; 1 day keeps only today's and yesterday's rows.
    expect((await run(dir, db, "db", "prune", "--days", "1", "--json")).json).toMatchObject({ days: 1, rows: 0 });
    expect((await run(dir, db, "db", "prune", "--days", "0")).exitCode).toBe(2);
    expect((await run(dir, db, "usage", "--json")).json).toEqual(usage.json);
  });

  test("serve prunes at start, off the request path, and says so on stderr", async () => {
    const { dir, db, old } = await oldDatabase();
    const before = (await run(dir, db, "usage", "--json")).json;
    const { proc } = await serve(["--db", db], { cwd: dir });
    try {
      await expect.poll(() => query<{ n: number }>(db, "SELECT COUNT(*) AS n FROM ledger")[0]!.n, { timeout: 10_000 }).toBe(1);
    } finally {
      proc.kill("SIGTERM");
    }
    const done = await proc;
    expect(done.stderr).toContain(`retention: folded ${old} ledger rows`);
    expect((await run(dir, db, "usage", "--json")).json).toEqual(before);
  });
});
