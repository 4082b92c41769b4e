/**
 * The Store contract, one set of cases for every implementation (as hono's router tests do):
 * sqlite.test.ts and postgres.test.ts call `storeCases` with a factory that makes an empty
 * database, so both stores are held to the same promises (src/store/*.ts say them).
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { periodStart } from "../../src/core/budget-periods.js";
import { MAX_NANO } from "../../src/core/money.js";
import { auditHash, GENESIS } from "../../src/store/audit.js";
import type { Attempt, AuditNote, KeyRecord, LedgerEntry, Store, UsageGroup, UsageGrouping, UsageRange } from "../../src/store/index.js";
import { rows } from "../helpers/rows.js";

export interface StoreHarness {
  /** Where the database is: a file path or a postgres:// URL (helpers/rows.ts reads both). */
  db: string;
  /** A new connection (a process of its own, as far as the store can tell) to the same database. */
  open(): Promise<Store>;
  /** Removes the database. */
  drop(): Promise<void>;
  /** Whether holds taken through one connection count on another (PostgreSQL; SQLite's live in its one process). */
  sharedHolds: boolean;
}

const T0 = Date.UTC(2026, 10, 20, 12);
const DAY = 86_400_000;

const key = (id: string, over: Partial<KeyRecord> = {}): KeyRecord => ({
  id,
  name: `name-${id}`,
  account: "acme",
  hash: `hash-${id}`,
  last4: id.slice(-4),
  createdAt: T0,
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  rpm: null,
  ...over,
});

let n = 0;
const entry = (over: Partial<LedgerEntry> = {}): LedgerEntry => ({
  requestId: `req-${++n}`,
  createdAt: T0,
  account: "acme",
  keyId: "k1",
  model: "m",
  provider: "p",
  promptTokens: 10,
  completionTokens: 5,
  cost: 100,
  listCost: 100,
  byok: false,
  usageSource: "provider",
  status: "ok",
  httpStatus: 200,
  latencyMs: 7,
  attempts: 1,
  ...over,
});
const ok = (e: LedgerEntry): Attempt[] => [
  { requestId: e.requestId, createdAt: e.createdAt, provider: "p", model: "m", outcome: "success", httpStatus: 200, latencyMs: 7 },
];

async function until(check: () => boolean, ms = 4_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function storeCases(make: () => Promise<StoreHarness>): void {
  let h: StoreHarness;
  let store: Store;
  const others: Store[] = [];
  const another = async () => {
    const s = await h.open();
    others.push(s);
    return s;
  };
  const ledgerRows = async () => (await rows<{ n: number }>(h.db, "SELECT COUNT(*) AS n FROM ledger"))[0]!.n;

  beforeEach(async () => {
    h = await make();
    store = await h.open();
    await store.addCredits("acme", 0n, T0);
    await store.createKey(key("k1"));
  });
  afterEach(async () => {
    for (const s of others.splice(0)) await s.close();
    await store.close().catch(() => undefined);
    await h.drop();
  });

  describe("keys", () => {
    test("create, find by hash, id or name, list per account in creation order", async () => {
      await store.addCredits("other", 0n, T0);
      await store.createKey(key("k2", { createdAt: T0 + 1, rpm: 60, expiresAt: T0 + DAY }));
      await store.createKey(key("k3", { account: "other", createdAt: T0 + 2 }));
      expect(await store.findKeyByHash("hash-k2")).toMatchObject({
        id: "k2",
        rpm: 60,
        expiresAt: T0 + DAY,
        revokedAt: null,
        budget: null,
        budgetPeriod: "total",
      });
      expect((await store.findKey("k2"))?.id).toBe("k2");
      expect((await store.findKey("name-k2"))?.id).toBe("k2");
      expect(await store.findKeyByHash("nope")).toBeUndefined();
      expect((await store.listKeys()).map((k) => k.id)).toEqual(["k1", "k2", "k3"]);
      expect((await store.listKeys("acme")).map((k) => k.id)).toEqual(["k1", "k2"]);
    });

    test("key names are unique per account: the same name in two accounts, found by name with its account, refused twice in one", async () => {
      await store.ensureAccount("other", T0);
      await store.createKey(key("k2", { name: "name-k1", account: "other", createdAt: T0 + 1 }));
      await expect(store.createKey(key("k3", { name: "name-k1" }))).rejects.toThrow();
      expect((await store.findKey("name-k1", "acme"))?.id).toBe("k1");
      expect((await store.findKey("name-k1", "other"))?.id).toBe("k2");
      // Without the account a name two accounts use finds none; an id is found anywhere, and with its own account only.
      expect(await store.findKey("name-k1")).toBeUndefined();
      expect((await store.findKey("k2"))?.id).toBe("k2");
      expect((await store.findKey("k2", "other"))?.id).toBe("k2");
      expect(await store.findKey("k2", "acme")).toBeUndefined();
      expect(await store.findKey("name-k1", "nobody")).toBeUndefined();
      await store.revokeKey("k1", T0 + 2);
      expect((await store.listKeys()).map((k) => [k.id, k.name, k.account])).toEqual([
        ["k1", "name-k1", "acme"],
        ["k2", "name-k1", "other"],
      ]);
    });

    test("limitsByManager: false unless given, set by update, kept by later updates (docs/dashboard.md)", async () => {
      await store.createKey(key("k2", { createdBy: "m@example.com", limitsByManager: true }));
      expect((await store.findKey("k1"))?.limitsByManager).toBe(false);
      expect((await store.findKeyByHash("hash-k2"))?.limitsByManager).toBe(true);
      await store.updateKey("k1", { rpm: 9, limitsByManager: true }, T0);
      await store.updateKey("k1", { rpm: 3 }, T0);
      expect(await store.findKey("k1")).toMatchObject({ rpm: 3, limitsByManager: true });
      expect((await store.listKeys("acme")).map((k) => k.limitsByManager)).toEqual([true, true]);
    });

    test("revoke sets revokedAt once; update changes rpm, expiry and budget; touch records last use", async () => {
      await store.revokeKey("k1", T0 + 5);
      await store.revokeKey("k1", T0 + 9);
      expect((await store.findKey("k1"))?.revokedAt).toBe(T0 + 5);
      await store.updateKey("k1", { rpm: 5, expiresAt: T0 + 1000, budget: 123n, budgetPeriod: "month" }, T0);
      expect(await store.findKey("k1")).toMatchObject({ rpm: 5, expiresAt: T0 + 1000, budget: 123n, budgetPeriod: "month" });
      await store.updateKey("k1", { rpm: null }, T0);
      expect(await store.findKey("k1")).toMatchObject({ rpm: null, budget: 123n });
      await store.touchKeys(new Map([["k1", T0 + 77]]));
      expect((await store.findKey("k1"))?.lastUsedAt).toBe(T0 + 77);
    });

    test("a key's response cache mode: off unless given, kept as created, changed by update (docs/cache.md)", async () => {
      await store.createKey(key("k2", { cache: "nondeterministic", createdBy: "o@example.com" }));
      expect((await store.findKey("k1"))?.cache).toBe("off");
      expect((await store.findKeyByHash("hash-k2"))?.cache).toBe("nondeterministic");
      expect((await store.findKey("k2"))?.createdBy).toBe("o@example.com");
      expect((await store.findKey("k1"))?.createdBy ?? null).toBeNull();
      await store.updateKey("k1", { cache: "on" }, T0);
      await store.updateKey("k2", { cache: "off" }, T0);
      expect((await store.listKeys("acme")).map((k) => [k.id, k.cache])).toEqual([
        ["k1", "on"],
        ["k2", "off"],
      ]);
    });

    test("a key's secret guardrail mode: none unless given, kept as created, changed by update (docs/guardrails.md)", async () => {
      await store.createKey(key("k3", { guardrails: "redact" }));
      expect((await store.findKey("k1"))?.guardrails ?? null).toBeNull();
      expect((await store.findKeyByHash("hash-k3"))?.guardrails).toBe("redact");
      await store.updateKey("k1", { guardrails: "block" }, T0);
      await store.updateKey("k3", { guardrails: "off" }, T0);
      expect((await store.findKey("k1"))?.guardrails).toBe("block");
      expect((await store.findKey("k3"))?.guardrails).toBe("off");
    });
  });

  describe("accounts and credits", () => {
    test("credits add exactly past 2^53, an unknown account has no balance, ensureAccount keeps a balance", async () => {
      expect(await store.balance("ghost")).toBeUndefined();
      const big = 2n ** 60n + 1n;
      expect(await store.addCredits("rich", big, T0)).toBe(big);
      expect(await store.addCredits("rich", 2, T0)).toBe(big + 2n);
      await store.ensureAccount("rich", T0);
      expect(await store.balance("rich")).toBe(big + 2n);
      await store.ensureAccount("new", T0);
      expect(await store.balance("new")).toBe(0n);
      await expect(store.addCredits("rich", MAX_NANO, T0)).rejects.toThrow(/./);
      expect(await store.balance("rich")).toBe(big + 2n);
    });

    test("adjust never goes below zero nor for an unknown account; history and the listing say what happened", async () => {
      await store.addCredits("acme", 500n, T0, "cli:ops");
      await expect(store.adjustCredits("acme", -501n, "too much", T0 + 1)).rejects.toMatchObject({ name: "NegativeBalanceError" });
      await expect(store.adjustCredits("ghost", 1n, "x", T0 + 1)).rejects.toMatchObject({ name: "AccountMissingError" });
      expect(await store.adjustCredits("acme", -500n, "refund", T0 + 2, "root@example.com")).toBe(0n);
      expect(await store.creditHistory("acme", 10)).toEqual([
        { amount: -500n, kind: "adjustment", reason: "refund", actor: "root@example.com", createdAt: T0 + 2 },
        { amount: 500n, kind: "grant", reason: null, actor: "cli:ops", createdAt: T0 },
        { amount: 0n, kind: "grant", reason: null, actor: null, createdAt: T0 },
      ]);
      await store.addCredits("acme", 1000n, T0);
      const e = entry({ cost: 300 });
      await store.settle(null, e, ok(e));
      await store.createKey(key("k2"));
      await store.revokeKey("k2", T0);
      expect((await store.accounts()).find((a) => a.id === "acme")).toEqual({ id: "acme", balance: 700n, createdAt: T0, keys: 1, spend: 300n });
    });
  });

  describe("holds and settlement", () => {
    test("the worst case equal to the balance is admitted, one more is not; settle releases the hold and writes one ledger row", async () => {
      await store.addCredits("acme", 1000n, T0);
      expect(await store.reserve("r1", "acme", 1000)).toBe(true);
      expect(await store.reserve("r2", "acme", 1)).toBe(false);
      const e = entry({ cost: 600 });
      await store.settle("r1", e, ok(e));
      expect(e.uncollected).toBe(0);
      expect(await store.balance("acme")).toBe(400n);
      expect(await ledgerRows()).toBe(1);
      expect(await store.reserve("r3", "acme", 400)).toBe(true);
      expect(await store.reserve("r4", "acme", 1)).toBe(false);
    });

    test("concurrent reserves never hold more than the balance (from two connections where holds are shared)", async () => {
      await store.addCredits("acme", 10_000n, T0);
      const second = h.sharedHolds ? await another() : store;
      const tries = Array.from({ length: 40 }, (_, i) => (i % 2 ? second : store).reserve(`c${i}`, "acme", 1000));
      expect((await Promise.all(tries)).filter(Boolean)).toHaveLength(10);
    });

    test("a charge beyond the balance and other holds is recorded as uncollected, never below zero", async () => {
      await store.addCredits("acme", 1000n, T0);
      expect(await store.reserve("mine", "acme", 100)).toBe(true);
      expect(await store.reserve("theirs", "acme", 800)).toBe(true);
      const e = entry({ cost: 250 });
      await store.settle("mine", e, ok(e));
      expect(e.uncollected).toBe(50);
      expect(await store.balance("acme")).toBe(800n);
      expect(await store.usage({ account: "acme" })).toMatchObject([{ cost: 200n, listCost: 100n, uncollected: 50n, requests: 1 }]);
    });

    test("a key's budget holds per period; keyBudgetUse reports spend and holds", async () => {
      await store.addCredits("acme", 10_000n, T0);
      await store.updateKey("k1", { budget: 500n, budgetPeriod: "day" }, T0);
      const budget = { keyId: "k1", limit: 500n, since: periodStart("day", T0) };
      expect(await store.reserve("b1", "acme", 500, budget)).toBe(true);
      expect(await store.reserve("b2", "acme", 1, budget)).toBe(false);
      expect(await store.keyBudgetUse("k1", budget.since)).toEqual({ spent: 0n, held: 500 });
      const e = entry({ cost: 300 });
      await store.settle("b1", e, ok(e));
      expect(await store.keyBudgetUse("k1", budget.since)).toEqual({ spent: 300n, held: 0 });
      expect(await store.reserve("b3", "acme", 201, budget)).toBe(false);
      // The next day starts from nothing; the balance still counts.
      const tomorrow = { ...budget, since: periodStart("day", T0 + DAY) };
      expect(await store.keyBudgetUse("k1", tomorrow.since)).toEqual({ spent: 0n, held: 0 });
      expect(await store.reserve("b4", "acme", 500, tomorrow)).toBe(true);
      // A new period recounts from the ledger: the whole week holds today's 300.
      await store.updateKey("k1", { budgetPeriod: "week" }, T0);
      expect((await store.keyBudgetUse("k1", periodStart("week", T0))).spent).toBe(300n);
    });
  });

  describe("account and member budgets", () => {
    const scope = (member: string | null, at = T0) => ({ member, at });
    const use = async (member: string | null, at = T0) => (await store.listBudgets("acme", at)).find((b) => b.member === member);

    test("set counts the period's spend from the ledger (a member's: only keys they created); list, replace, remove", async () => {
      await store.addCredits("acme", 10_000n, T0);
      await store.createKey(key("k2", { createdBy: "alice@example.com" }));
      for (const e of [entry({ cost: 100 }), entry({ keyId: "k2", cost: 40 }), entry({ keyId: "k2", cost: 2, createdAt: T0 - 40 * DAY })])
        await store.settle(null, e, ok(e));
      await store.setBudget({ account: "acme", member: null, amount: 5_000n, period: "month" }, T0);
      await store.setBudget({ account: "acme", member: "alice@example.com", amount: 1_000n, period: "total" }, T0);
      expect(await store.listBudgets(undefined, T0)).toEqual([
        { account: "acme", member: null, amount: 5_000n, period: "month", spent: 140n, held: 0 },
        { account: "acme", member: "alice@example.com", amount: 1_000n, period: "total", spent: 42n, held: 0 },
      ]);
      await store.setBudget({ account: "acme", member: null, amount: 7_000n, period: "day" }, T0);
      expect(await use(null)).toEqual({ account: "acme", member: null, amount: 7_000n, period: "day", spent: 140n, held: 0 });
      expect(await store.removeBudget("acme", "alice@example.com")).toBe(true);
      expect(await store.removeBudget("acme", "alice@example.com")).toBe(false);
      expect(await store.listBudgets("other", T0)).toEqual([]);
      expect((await store.listBudgets("acme", T0)).map((b) => b.member)).toEqual([null]);
    });

    test("concurrent reserves never hold more than the account's budget, nor the member's (two connections where holds are shared)", async () => {
      await store.addCredits("acme", 1_000_000n, T0);
      await store.setBudget({ account: "acme", member: null, amount: 10_000n, period: "day" }, T0);
      await store.setBudget({ account: "acme", member: "bob@example.com", amount: 3_000n, period: "day" }, T0);
      const second = h.sharedHolds ? await another() : store;
      const bob = Array.from({ length: 12 }, (_, i) => (i % 2 ? second : store).reserve(`m${i}`, "acme", 1000, undefined, scope("bob@example.com")));
      expect((await Promise.all(bob)).filter(Boolean)).toHaveLength(3);
      const anyone = Array.from({ length: 20 }, (_, i) => (i % 2 ? second : store).reserve(`a${i}`, "acme", 1000, undefined, scope(null)));
      expect((await Promise.all(anyone)).filter(Boolean)).toHaveLength(7);
      expect(await use(null)).toMatchObject({ spent: 0n, held: 10_000 });
      expect(await use("bob@example.com")).toMatchObject({ spent: 0n, held: 3_000 });
      // Without a scope (internal probes) only the balance counts.
      expect(await store.reserve("probe", "acme", 1000)).toBe(true);
    });

    test("settlement counts each level's spend in its period, a release gives back every level, a new day starts from zero", async () => {
      await store.addCredits("acme", 1_000_000n, T0);
      await store.createKey(key("k2", { createdBy: "bob@example.com" }));
      await store.setBudget({ account: "acme", member: null, amount: 10_000n, period: "day" }, T0);
      await store.setBudget({ account: "acme", member: "bob@example.com", amount: 5_000n, period: "month" }, T0);
      expect(await store.reserve("s1", "acme", 4_000, undefined, scope("bob@example.com"))).toBe(true);
      expect(await store.reserve("s2", "acme", 1_000, undefined, scope("bob@example.com"))).toBe(true);
      expect(await store.reserve("s3", "acme", 1, undefined, scope("bob@example.com"))).toBe(false);
      await store.release("s2");
      expect(await use("bob@example.com")).toMatchObject({ held: 4_000 });
      expect(await use(null)).toMatchObject({ held: 4_000 });
      // Charged more than its hold: at most what the tighter level (bob's 5,000) leaves.
      const big = entry({ keyId: "k2", cost: 6_000 });
      await store.settle("s1", big, ok(big));
      expect(big.uncollected).toBe(1_000);
      expect(await use("bob@example.com")).toMatchObject({ spent: 5_000n, held: 0 });
      expect(await use(null)).toMatchObject({ spent: 5_000n, held: 0 });
      expect(await store.reserve("s4", "acme", 1, undefined, scope("bob@example.com"))).toBe(false);
      // A key nobody's member budget covers (k1, from the CLI) still counts against the account's.
      expect(await store.reserve("s5", "acme", 5_000, undefined, scope(null))).toBe(true);
      expect(await store.reserve("s6", "acme", 1, undefined, scope(null))).toBe(false);
      await store.release("s5");
      // The next day: the daily account budget starts again, bob's monthly one does not.
      const next = T0 + DAY;
      expect(await use(null, next)).toMatchObject({ spent: 0n });
      expect(await store.reserve("s7", "acme", 10_000, undefined, scope(null, next))).toBe(true);
      expect(await store.reserve("s8", "acme", 1, undefined, scope("bob@example.com", next))).toBe(false);
      const late = entry({ cost: 10_000, createdAt: next });
      await store.settle("s7", late, ok(late));
      expect(await use(null, next)).toMatchObject({ spent: 10_000n, held: 0 });
      expect(await store.balance("acme")).toBe(1_000_000n - 15_000n);
    });
  });

  describe("ledger", () => {
    test("usage, daily spend and recent requests; prune folds old rows into rollups that sum exactly", async () => {
      await store.addCredits("acme", 10_000n, T0);
      const old = entry({ createdAt: T0 - 3 * DAY, cost: 40, endpoint: "embeddings" });
      const failed = entry({ createdAt: T0 - 3 * DAY + 1, cost: 0, status: "error", httpStatus: 503 });
      const recent = entry({ createdAt: T0, cost: 60, byok: true, listCost: 90 });
      await store.settle(null, old, ok(old));
      const tries: Attempt[] = [
        { ...ok(failed)[0]!, outcome: "timeout", httpStatus: null },
        { ...ok(failed)[0]!, outcome: "http_503", httpStatus: 503 },
      ];
      await store.settle(null, failed, tries);
      await store.settle(null, recent, ok(recent));
      const before = await store.usage({ account: "acme" });
      expect(before.reduce((s, r) => s + r.cost, 0n)).toBe(100n);
      expect(await store.usage({ account: "acme", since: T0 - DAY })).toMatchObject([{ requests: 1, cost: 60n, listCost: 90n, keyName: "name-k1" }]);
      expect((await store.recentRequests("acme", 2)).map((r) => [r.requestId, r.keyName, r.byok])).toEqual([
        [recent.requestId, "name-k1", true],
        [failed.requestId, "name-k1", false],
      ]);
      const days = await store.dailySpend("acme", T0 - 7 * DAY);
      expect(await store.oldestLedgerAt()).toBe(T0 - 3 * DAY);

      expect(await store.prune(T0 - DAY)).toEqual({ rows: 2, attempts: 2, rollups: 2 });
      expect(await ledgerRows()).toBe(1);
      expect(await store.oldestLedgerAt()).toBe(T0);
      expect(await store.usage({ account: "acme" })).toEqual(before);
      expect(await store.dailySpend("acme", T0 - 7 * DAY)).toEqual(days);
      expect(days).toEqual([
        { day: periodStart("day", T0 - 3 * DAY), cost: 40n, requests: 2 },
        { day: periodStart("day", T0), cost: 60n, requests: 1 },
      ]);
    });

    test("cache hits and what they saved are summed from rows and kept through the rollups", async () => {
      await store.addCredits("acme", 10_000n, T0);
      const hit = (createdAt: number) => entry({ createdAt, cost: 0, listCost: 250, provider: null, usageSource: "cache_hit", attempts: 0 });
      for (const e of [entry({ createdAt: T0 - 3 * DAY }), hit(T0 - 3 * DAY + 1), hit(T0)]) await store.settle(null, e, []);
      const before = await store.usage({ account: "acme" });
      expect(before).toMatchObject([{ requests: 3, cost: 100n, listCost: 600n, cacheHits: 2, cacheSaved: 500n }]);
      await store.prune(T0 - DAY);
      expect(await store.usage({ account: "acme" })).toEqual(before);
    });
    test("a member's usage: only the keys that user created, in usage, daily spend and recent requests, before and after prune", async () => {
      await store.addCredits("acme", 10_000n, T0);
      await store.createKey(key("m1", { createdBy: "m@example.com" }));
      await store.createKey(key("o1", { createdBy: "o@example.com" }));
      const mine = [entry({ keyId: "m1", createdAt: T0 - 3 * DAY, cost: 7 }), entry({ keyId: "m1", cost: 11 })];
      for (const e of [...mine, entry({ keyId: "o1", cost: 500 }), entry({ keyId: "k1", cost: 900 })]) await store.settle(null, e, ok(e));
      const check = async () => {
        expect((await store.usage({ account: "acme", member: "m@example.com" })).map((r) => [r.keyId, r.cost])).toEqual([["m1", 18n]]);
        expect(await store.dailySpend("acme", T0 - 7 * DAY, "m@example.com")).toEqual([
          { day: periodStart("day", T0 - 3 * DAY), cost: 7n, requests: 1 },
          { day: periodStart("day", T0), cost: 11n, requests: 1 },
        ]);
        expect(await store.usage({ account: "acme", member: "nobody@example.com" })).toEqual([]);
      };
      await check();
      expect((await store.recentRequests("acme", 10, "m@example.com")).map((r) => r.requestId)).toEqual([mine[1]!.requestId, mine[0]!.requestId]);
      expect((await store.recentRequests("acme", 10)).length).toBe(4);
      await store.prune(T0 - DAY);
      await check();
    });
  });

  describe("usage groups", () => {
    const HOUR = 3_600_000;
    const GROUPINGS: UsageGrouping[] = [
      { by: "tag", tag: "team" },
      { by: "tag", tag: "env" },
      { by: "member" },
      { by: "key" },
      { by: "model" },
      { by: "endpoint" },
      { by: "day" },
    ];
    const sorted = (groups: UsageGroup[]) => [...groups].sort((a, b) => String(a.group).localeCompare(String(b.group)));
    const snapshot = async (range: UsageRange) => Promise.all(GROUPINGS.map(async (g) => sorted(await store.usageGroups(g, range))));
    const g = (group: string | null, requests: number, cost: bigint) => ({
      group,
      requests,
      promptTokens: 10 * requests,
      completionTokens: 5 * requests,
      cost,
    });

    test("by tag, member, key, model, endpoint and UTC day over a range, exact; prune keeps every sum, tags included", async () => {
      await store.addCredits("acme", 10_000n, T0);
      await store.addCredits("other", 10_000n, T0);
      await store.createKey(key("k2", { createdBy: "bob@example.com" }));
      await store.createKey(key("k3", { account: "other" }));
      const entries = [
        entry({ createdAt: T0 - 3 * DAY, cost: 40, tags: { team: "a", env: "x" } }),
        entry({ createdAt: T0 - 3 * DAY + 1, keyId: "k2", model: "n", cost: 50, endpoint: "responses", tags: { team: "b" } }),
        entry({ createdAt: T0 - 3 * DAY + 2, cost: 70 }),
        entry({ createdAt: T0, keyId: "k2", cost: 60, tags: { team: "a" } }),
        entry({ createdAt: T0 + 2 * HOUR, cost: 7, tags: { team: "a" } }), // after the range below
        entry({ createdAt: T0, account: "other", keyId: "k3", cost: 9, tags: { team: "a" } }), // another account
      ];
      for (const e of entries) await store.settle(null, e, ok(e));
      const range = { account: "acme", since: T0 - 4 * DAY, until: T0 + HOUR };
      const day = (t: number) => new Date(t).toISOString().slice(0, 10);
      const before = await snapshot(range);
      expect(before).toEqual([
        [g("a", 2, 100n), g("b", 1, 50n), g(null, 1, 70n)],
        [g(null, 3, 180n), g("x", 1, 40n)],
        [g("bob@example.com", 2, 110n), g(null, 2, 110n)],
        [g("k1", 2, 110n), g("k2", 2, 110n)],
        [g("m", 3, 170n), g("n", 1, 50n)],
        [g("chat", 3, 170n), g("responses", 1, 50n)],
        [g(day(T0 - 3 * DAY), 3, 160n), g(day(T0), 1, 60n)],
      ]);
      expect(sorted(await store.usageGroups({ by: "tag", tag: "team" }, { account: "acme" }))).toEqual([g("a", 3, 107n), g("b", 1, 50n), g(null, 1, 70n)]);
      expect(sorted(await store.usageGroups({ by: "tag", tag: "team" }, {}))).toEqual([g("a", 4, 116n), g("b", 1, 50n), g(null, 1, 70n)]);
      expect(await store.usageGroups({ by: "tag", tag: "nobody" }, range)).toEqual([g(null, 4, 220n)]);
      expect(await store.usageGroups({ by: "model" }, { account: "acme", since: T0 + 3 * HOUR })).toEqual([]);

      await store.prune(T0 - DAY);
      expect(await ledgerRows()).toBe(3);
      expect(await snapshot(range)).toEqual(before);
      expect(sorted(await store.usageGroups({ by: "tag", tag: "team" }, { account: "acme" }))).toEqual([g("a", 3, 107n), g("b", 1, 50n), g(null, 1, 70n)]);
      // A rolled-up day counts when it starts within the range.
      expect(await store.usageGroups({ by: "endpoint" }, { account: "acme", since: T0 - 3 * DAY - 12 * HOUR + 1, until: T0 })).toEqual([]);
      const rolled = periodStart("day", T0 - 3 * DAY);
      expect(sorted(await store.usageGroups({ by: "tag", tag: "team" }, { account: "acme", since: rolled, until: rolled + 1 }))).toEqual([
        g("a", 1, 40n),
        g("b", 1, 50n),
        g(null, 1, 70n),
      ]);
    });

    test("a member's breakdown: only the keys that user created, every grouping; a rolled-up day's tags count under null", async () => {
      await store.addCredits("acme", 10_000n, T0);
      await store.createKey(key("k2", { createdBy: "bob@example.com" }));
      await store.createKey(key("k4", { createdBy: "ann@example.com" }));
      const entries = [
        entry({ createdAt: T0 - 3 * DAY, cost: 40, tags: { team: "a" } }), // k1: the CLI's
        entry({ createdAt: T0 - 3 * DAY + 1, keyId: "k2", model: "n", cost: 50, endpoint: "responses", tags: { team: "b" } }),
        entry({ createdAt: T0 - 3 * DAY + 2, keyId: "k4", cost: 70, tags: { team: "b" } }),
        entry({ createdAt: T0, keyId: "k2", cost: 60, tags: { team: "a" } }),
        entry({ createdAt: T0, keyId: "k4", cost: 8, tags: { team: "a" } }),
      ];
      for (const e of entries) await store.settle(null, e, ok(e));
      const bob = { account: "acme", member: "bob@example.com", since: T0 - 4 * DAY, until: T0 + DAY };
      const day = (t: number) => new Date(t).toISOString().slice(0, 10);
      const [team, ...rest] = await snapshot(bob);
      const others = [
        [g(null, 2, 110n)],
        [g("bob@example.com", 2, 110n)],
        [g("k2", 2, 110n)],
        [g("m", 1, 60n), g("n", 1, 50n)],
        [g("chat", 1, 60n), g("responses", 1, 50n)],
        [g(day(T0 - 3 * DAY), 1, 50n), g(day(T0), 1, 60n)],
      ];
      expect(team).toEqual([g("a", 1, 60n), g("b", 1, 50n)]);
      expect(rest).toEqual(others);
      expect(await store.usageGroups({ by: "key" }, { account: "acme", member: "nobody@example.com" })).toEqual([]);

      await store.prune(T0 - DAY);
      const [teamAfter, ...restAfter] = await snapshot(bob);
      // usage_daily_tags keeps no key: Bob's pruned request of team b is his, its tag unknown now.
      expect(teamAfter).toEqual([g("a", 1, 60n), g(null, 1, 50n)]);
      expect(restAfter).toEqual(others);
      // The account's view is unchanged by the member filter's existence.
      expect(sorted(await store.usageGroups({ by: "tag", tag: "team" }, { account: "acme" }))).toEqual([g("a", 3, 108n), g("b", 2, 120n)]);
    });
  });

  describe("byok, catalog, responses", () => {
    test("BYOK rows are set, replaced, listed per account and removed", async () => {
      await store.addCredits("other", 0n, T0);
      await store.setByok({ account: "acme", provider: "openai", secret: Buffer.from([1, 2]), last4: "aaaa", updatedAt: T0 });
      await store.setByok({ account: "acme", provider: "openai", secret: Buffer.from([3]), last4: "bbbb", updatedAt: T0 + 1 });
      await store.setByok({ account: "other", provider: "anthropic", secret: Buffer.from([4]), last4: "cccc", updatedAt: T0 });
      expect(await store.listByok("acme")).toEqual([{ account: "acme", provider: "openai", secret: Buffer.from([3]), last4: "bbbb", updatedAt: T0 + 1 }]);
      expect((await store.listByok()).map((r) => r.account)).toEqual(["acme", "other"]);
      expect(await store.removeByok("acme", "openai")).toBe(true);
      expect(await store.removeByok("acme", "openai")).toBe(false);
      expect(await store.listByok("acme")).toEqual([]);
    });

    test("the catalog is saved whole and read back as saved", async () => {
      const model = {
        id: "a/m",
        ownedBy: "a",
        promptPrice: 1000,
        completionPrice: 2000,
        cacheReadPrice: 100,
        contextLength: 8192,
        maxOutput: null,
        endpoints: [{ provider: "p", model: "m" }],
        order: "fixed" as const,
        capabilities: { tools: true, embeddings: false },
        source: "config" as const,
        created: 1_700_000_000,
      };
      await store.replaceCatalog([model, { ...model, id: "b/m", capabilities: undefined, cacheReadPrice: undefined, promptPrice: null }]);
      const read = await store.catalog();
      expect(read[0]).toEqual(model);
      expect(read[1]).toMatchObject({ id: "b/m", promptPrice: null });
      await store.replaceCatalog([]);
      expect(await store.catalog()).toEqual([]);
    });

    test("stored responses: the owner's only, chained oldest first within limits, deleted and pruned", async () => {
      const r = (id: string, previousId: string | null, createdAt = T0) => ({
        id,
        account: "acme",
        createdAt,
        model: "m",
        previousId,
        items: [{ type: "message", text: id }],
        response: { id },
      });
      await store.saveResponse(r("r1", null, T0 - DAY));
      await store.saveResponse(r("r2", "r1"));
      await store.saveResponse(r("r3", "r2"));
      expect(await store.findResponse("r2", "acme")).toEqual(r("r2", "r1"));
      expect(await store.findResponse("r2", "other")).toBeUndefined();
      expect((await store.responseChain("r3", "acme", { depth: 10, bytes: 1e6 })).map((x) => x.id)).toEqual(["r1", "r2", "r3"]);
      expect((await store.responseChain("r3", "acme", { depth: 2, bytes: 1e6 })).map((x) => x.id)).toEqual(["r2", "r3"]);
      expect(await store.responseChain("r3", "other", { depth: 10, bytes: 1e6 })).toEqual([]);
      expect(await store.deleteResponse("r3", "other")).toBe(false);
      expect(await store.deleteResponse("r3", "acme")).toBe(true);
      expect(await store.findResponse("r3", "acme")).toBeUndefined();
      expect(await store.pruneResponses(T0 - 1)).toBe(1);
      expect(await store.findResponse("r1", "acme")).toBeUndefined();
    });
  });

  describe("dashboard", () => {
    test("users, sessions that expire and end on a new password, single-use sign-in links, removal cascades", async () => {
      const user = { email: "ops@example.com", account: "acme", admin: true, passwordHash: null, createdAt: T0, vouchedBy: null };
      await store.createUser(user);
      await expect(store.createUser(user)).rejects.toThrow();
      await store.createUser({ ...user, email: "a@example.com", admin: false });
      expect(await store.findUser("ops@example.com")).toEqual(user);
      expect((await store.listUsers()).map((u) => u.email)).toEqual(["a@example.com", "ops@example.com"]);

      await store.createSession({ hash: "s1", email: user.email, createdAt: T0, expiresAt: T0 + 100 });
      expect(await store.findSession("s1", T0 + 99)).toEqual(user);
      expect(await store.findSession("s1", T0 + 100)).toBeUndefined();
      await store.setPassword(user.email, "scrypt$x", null);
      expect(await store.findSession("s1", T0 + 1)).toBeUndefined();
      expect((await store.findUser(user.email))?.passwordHash).toBe("scrypt$x");
      await store.createSession({ hash: "s2", email: user.email, createdAt: T0, expiresAt: T0 + 100 });
      await store.deleteSession("s2");
      expect(await store.findSession("s2", T0)).toBeUndefined();

      await store.createSignInLink("l1", user.email, T0 + 100, null);
      await store.createSignInLink("l2", user.email, T0 + 100, "acme");
      expect(await store.takeSignInLink("l1", T0)).toBeUndefined();
      expect(await store.takeSignInLink("l2", T0)).toEqual({ email: user.email, vouchedBy: "acme" });
      expect(await store.takeSignInLink("l2", T0)).toBeUndefined();
      await store.createSignInLink("l3", user.email, T0 + 100, null);
      expect(await store.takeSignInLink("l3", T0 + 100)).toBeUndefined();

      await store.createSession({ hash: "s3", email: user.email, createdAt: T0, expiresAt: T0 + 100 });
      expect(await store.removeUser(user.email)).toBe(true);
      expect(await store.removeUser(user.email)).toBe(false);
      expect(await store.findSession("s3", T0)).toBeUndefined();
    });

    test("useSession: an idle session ends, a used one lives on, and its use is recorded at most once per interval", async () => {
      const user = { email: "idle@example.com", account: "acme", admin: false, passwordHash: null, createdAt: T0, vouchedBy: null };
      await store.createUser(user, "member");
      await store.createSession({ hash: "u1", email: user.email, createdAt: T0, expiresAt: T0 + 10_000 });
      // Idle window 100 ms, uses recorded when the recorded one is 50 ms old or older.
      expect(await store.useSession("u1", T0 + 40, T0 + 40 - 100, 50)).toEqual(user); // too soon: not recorded
      expect(await store.useSession("u1", T0 + 100, T0, 50)).toBeUndefined(); // last recorded use T0 is not after T0
      expect(await store.useSession("u1", T0 + 99, T0 - 1, 50)).toEqual(user); // recorded at T0 + 99
      expect(await store.useSession("u1", T0 + 140, T0 + 40, 50)).toEqual(user); // alive thanks to the use at T0 + 99; too soon to record
      expect(await store.useSession("u1", T0 + 199, T0 + 99, 50)).toBeUndefined(); // idle since T0 + 99
      // The fixed lifetime still holds for a session in use.
      await store.createSession({ hash: "u2", email: user.email, createdAt: T0, expiresAt: T0 + 100 });
      expect(await store.useSession("u2", T0 + 60, T0 - 40, 50)).toEqual(user);
      expect(await store.useSession("u2", T0 + 100, T0 + 60, 50)).toBeUndefined();
      expect(await store.useSession("nope", T0, T0 - 100, 50)).toBeUndefined();
    });

    test("memberships: a new user owns their account unless told otherwise, belongs to several, roles change, removal keeps the user", async () => {
      await store.ensureAccount("beta", T0);
      await store.createUser({ email: "o@example.com", account: "acme", admin: false, passwordHash: null, createdAt: T0, vouchedBy: null });
      await store.createUser({ email: "v@example.com", account: "acme", admin: false, passwordHash: null, createdAt: T0 + 1, vouchedBy: null }, "viewer");
      await store.setMembership({ email: "o@example.com", account: "beta", role: "member", createdAt: T0 + 2 });
      expect(await store.memberships("o@example.com")).toEqual([
        { email: "o@example.com", account: "acme", role: "owner", createdAt: T0 },
        { email: "o@example.com", account: "beta", role: "member", createdAt: T0 + 2 },
      ]);
      expect((await store.listMembers("acme")).map((m) => [m.email, m.role])).toEqual([
        ["o@example.com", "owner"],
        ["v@example.com", "viewer"],
      ]);
      await store.setMembership({ email: "v@example.com", account: "acme", role: "admin", createdAt: T0 + 9 });
      expect((await store.listMembers("acme"))[1]).toEqual({ email: "v@example.com", account: "acme", role: "admin", createdAt: T0 + 1 });
      expect(await store.removeMembership("o@example.com", "beta")).toBe(true);
      expect(await store.removeMembership("o@example.com", "beta")).toBe(false);
      expect(await store.findUser("o@example.com")).toBeDefined();
      await store.removeUser("v@example.com");
      expect((await store.listMembers("acme")).map((m) => m.email)).toEqual(["o@example.com"]);
    });
  });

  describe("invitations", () => {
    test("vouchedBy: kept as created, set with a password from its link; vouchForUser drops the password, links and sessions once", async () => {
      const invited = { email: "inv@example.com", account: "acme", admin: false, passwordHash: null, createdAt: T0, vouchedBy: "acme" };
      await store.createUser(invited, "member");
      expect(await store.findUser(invited.email)).toEqual(invited);
      await store.setPassword(invited.email, "scrypt$owner-link", "acme");
      await store.createSession({ hash: "v1", email: invited.email, createdAt: T0, expiresAt: T0 + 100 });
      expect(await store.findSession("v1", T0)).toEqual({ ...invited, passwordHash: "scrypt$owner-link" });
      await store.createSignInLink("vl", invited.email, T0 + 100, "acme");

      expect(await store.vouchForUser(invited.email)).toBe(true);
      expect(await store.findUser(invited.email)).toEqual({ ...invited, passwordHash: null, vouchedBy: null });
      expect(await store.findSession("v1", T0)).toBeUndefined();
      expect(await store.takeSignInLink("vl", T0)).toBeUndefined();
      expect(await store.vouchForUser(invited.email)).toBe(false); // already vouched for: nothing changes
      // The operator's link sets a password nobody but the operator vouched for.
      await store.setPassword(invited.email, "scrypt$operator-link", null);
      expect(await store.findUser(invited.email)).toMatchObject({ passwordHash: "scrypt$operator-link", vouchedBy: null });
      expect(await store.vouchForUser(invited.email)).toBe(false);
      expect((await store.findUser(invited.email))?.passwordHash).toBe("scrypt$operator-link");
    });
  });

  describe("journal and watch", () => {
    test("streams a stopped process journaled are left for the next one; settling drops the row", async () => {
      const row = {
        requestId: "s1",
        createdAt: T0,
        account: "acme",
        keyId: "k1",
        model: "m",
        provider: "p",
        promptTokens: 3,
        completionTokens: 4,
        listCost: 9,
        byok: false,
      };
      await store.journalInflight([row, { ...row, requestId: "s2" }]);
      await store.journalInflight([row]);
      await store.close();
      store = await h.open();
      expect(await store.leftInflight()).toEqual([row]);
      const e = entry({ requestId: "s1", cost: 0 });
      await store.settle(null, e, ok(e));
      await store.close();
      store = await h.open();
      expect(await store.leftInflight()).toEqual([]);
    });

    test("watch tells of another connection's change, and stops after unsubscribe", async () => {
      const second = await another();
      let calls = 0;
      const stop = store.watch(() => calls++);
      await new Promise((r) => setTimeout(r, 600)); // listening (a reconnect also notifies)
      calls = 0;
      await second.revokeKey("k1", T0);
      await until(() => calls > 0);
      stop();
      calls = 0;
      await second.addCredits("acme", 1n, T0);
      await new Promise((r) => setTimeout(r, 600));
      expect(calls).toBe(0);
    });
  });

  describe("audit log", () => {
    const note = (action: string, account: string | null = "acme"): AuditNote => ({
      actor: "cli:test",
      ip: null,
      at: T0,
      action,
      account,
      target: "k9",
      before: null,
      after: { name: "k9", nested: { b: 1, a: [1, "x"] } },
    });
    /** Each record follows the one before it: consecutive ids, the previous hash, its own hash. */
    const chainIsIntact = async (s: Store) => {
      let prev = GENESIS;
      const all = await s.auditRecords();
      all.forEach((r, i) => {
        expect(r.id).toBe(i + 1);
        expect(r.prevHash).toBe(prev);
        expect(auditHash(r)).toBe(r.hash);
        prev = r.hash;
      });
      expect(await s.auditHead()).toEqual({ id: all.length, hash: prev });
      return all;
    };

    test("an audited change commits with its one record; a false answer, a failed change or a failed record commits neither", async () => {
      expect(await store.auditHead()).toEqual({ id: 0, hash: GENESIS });
      await store.audited(note("key.create")).createKey(key("k9"));
      expect(await store.findKey("k9")).toBeDefined();
      expect(await store.audited(note("byok.remove")).removeByok("acme", "openai")).toBe(false);
      await expect(store.audited(note("key.create")).createKey(key("k9"))).rejects.toThrow();
      const broken = { ...note("key.create"), actor: null as unknown as string };
      await expect(store.audited(broken).createKey(key("k10"))).rejects.toThrow();
      expect(await store.findKey("k10")).toBeUndefined();
      const [r] = await chainIsIntact(store);
      expect(r).toMatchObject({ action: "key.create", actor: "cli:test", ip: null, at: T0, account: "acme", before: null, after: note("").after });
      const balance = await store.audited((b: bigint) => ({ ...note("credits.add"), after: { balance: String(b) } })).addCredits("acme", 5n, T0);
      expect((await store.auditRecords({ action: "credits.add" }))[0]!.after).toEqual({ balance: String(balance) });
    });

    test("appendAudit, filters by since, account and action; appends from two connections at once keep one exact chain", async () => {
      const second = await another();
      await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? store : second).appendAudit({ ...note(`n.${i}`, i % 3 ? "acme" : null), at: T0 + i })));
      expect(await chainIsIntact(store)).toHaveLength(12);
      expect(await store.auditRecords({ since: T0 + 10 })).toHaveLength(2);
      expect((await store.auditRecords({ account: "acme" })).every((r) => r.account === "acme")).toBe(true);
      expect(await store.auditRecords({ action: "n.3" })).toHaveLength(1);
    });
  });
}
