/**
 * Money, the hard cases (docs/billing.md): charges are never capped by the hold, what cannot
 * be collected is recorded, key budgets hold under concurrency, GET /v1/key.
 */
import { rows } from "./helpers/rows.js";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { periodStart } from "../src/core/budget-periods.js";
import { encrypt, loadSecret } from "../src/access/byok.js";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { ledgerEntry } from "./helpers/ledger-entry.js";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";
import { FAST_RETRY, useGateway } from "./helpers/gateway.js";
import { bearer, expectError } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";

const MODEL = "openai/gpt-4o-mini";
const ok = () => completion("ok", { prompt_tokens: 12, completion_tokens: 5 });
const h = useGateway(
  (fakeUrl) => ({
    providers: { openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-platform-key-0001" } },
    models: [{ id: MODEL, pricing: { prompt: "0.15", completion: "0.6" }, max_output: 16384, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
    limits: { key: { requests: 1000, window: 60 } },
    retry: FAST_RETRY,
  }),
  { fallback: ok },
);

interface Row {
  cost: number;
  list_cost: number;
  uncollected: number;
  prompt_tokens: number;
  key_id: string;
}
const ledger = (account: string) => rows<Row>(h.gw.db, "SELECT * FROM ledger WHERE account = ? ORDER BY id", account);
const balance = async (account: string) => await h.gw.store.balance(account);
// Worst case of this body: 34 prompt tokens (the byte bound) × 150 + 10 × 600 = 11,100 nano-USD.
const HOLD = 11_100;
const ask = (key: string) => h.post({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 10 }, bearer(key));
// 2,001 × 150 + 5 × 600 = 303,150 nano-USD, far above the 11,100 held.
const big = () => completion("ok", { prompt_tokens: 2001, completion_tokens: 5 });
const BIG = 303_150;

async function keyWithBudget(account: string, budget: bigint, period: "day" | "week" | "month" | "total" = "total") {
  const key = await h.gw.createKey({ account });
  const id = (await h.gw.store.listKeys(account)).at(-1)!.id;
  await h.gw.store.updateKey(id, { budget, budgetPeriod: period }, Date.now());
  return { key, id };
}

describe("the hold decides admission only", () => {
  test("a short prompt for which the provider reports 2,001 prompt tokens is charged in full", async () => {
    const key = await h.gw.createKey({ account: "full" });
    await h.gw.addCredits("1", "full");
    h.fake.queue(big());
    expect((await ask(key)).status).toBe(200);
    expect(await balance("full")).toBe(1_000_000_000n - BigInt(BIG));
    expect(await ledger("full")).toEqual([expect.objectContaining({ cost: BIG, list_cost: BIG, uncollected: 0, prompt_tokens: 2001 })]);
  });

  test("a balance smaller than the reported cost ends at exactly zero, the difference recorded as uncollected", async () => {
    const key = await h.gw.createKey({ account: "short" });
    await h.gw.addCredits("0.0001", "short"); // 100,000 nano-USD: admits the 11,100 hold, not the 303,150 reported
    h.fake.queue(big());
    expect((await ask(key)).status).toBe(200);
    expect(await balance("short")).toBe(0n);
    expect(await ledger("short")).toEqual([expect.objectContaining({ cost: 100_000, list_cost: BIG, uncollected: BIG - 100_000 })]);
    await expectError(await ask(key), 402, "insufficient_credits", null);
  });

  test("the excess never takes what another request in flight holds", async () => {
    const key = await h.gw.createKey({ account: "shared" });
    await h.gw.store.addCredits("shared", BigInt(2 * HOLD), Date.now());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.fake.queue({ ...(ok() as { json: unknown }), waitFor: gate }, big());
    const first = ask(key);
    await expect.poll(() => h.fake.requests.length).toBe(1);
    expect((await ask(key)).status).toBe(200);
    // The second took its own hold and nothing of the first's: 11,100 collected, the rest recorded.
    expect(await ledger("shared")).toEqual([expect.objectContaining({ cost: HOLD, list_cost: BIG, uncollected: BIG - HOLD })]);
    expect(await balance("shared")).toBe(BigInt(HOLD));
    release();
    expect((await first).status).toBe(200);
    expect(await balance("shared")).toBe(BigInt(HOLD - 4_800));
    const rows = await ledger("shared");
    expect(rows.reduce((s, r) => s + r.cost, 0)).toBe(2 * HOLD - (HOLD - 4_800)); // the ledger's sum is the balance change
  });
});

describe("key budgets", () => {
  test("50 concurrent requests against a budget that covers exactly 5: 5 answered, spend never above the budget", async () => {
    await h.gw.addCredits("1", "budgeted");
    const { key, id } = await keyWithBudget("budgeted", BigInt(5 * HOLD));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.fake.fallback = () => ({ ...(ok() as { json: unknown }), waitFor: gate });
    try {
      const statuses: number[] = [];
      const refusals: string[] = [];
      const pending = Array.from({ length: 50 }, () =>
        ask(key).then(async (r) => {
          statuses.push(r.status);
          if (r.status === 402) refusals.push(((await r.json()) as { error: { message: string } }).error.message);
          return r.status;
        }),
      );
      await expect.poll(() => refusals.length, { timeout: 10_000 }).toBe(45);
      expect(refusals[0]).toMatch(/this API key's budget has \$0 left of \$0\.0000555 in total/);
      expect(await h.gw.store.keyBudgetUse(id, 0)).toEqual({ spent: 0n, held: 5 * HOLD });
      release();
      expect((await Promise.all(pending)).filter((s) => s === 200)).toHaveLength(5);
      expect(await h.gw.store.keyBudgetUse(id, 0)).toEqual({ spent: 5n * 4_800n, held: 0 });
      expect((await ledger("budgeted")).reduce((s, r) => s + r.cost, 0)).toBe(5 * 4_800);
      expect(await balance("budgeted")).toBe(1_000_000_000n - 5n * 4_800n); // the balance was never the limit
    } finally {
      release();
      h.fake.fallback = ok;
    }
  });

  test("a charge above the hold stops at the budget: spend equals the budget, the rest uncollected", async () => {
    await h.gw.addCredits("1", "capped");
    const { key, id } = await keyWithBudget("capped", BigInt(HOLD));
    h.fake.queue(big());
    expect((await ask(key)).status).toBe(200);
    expect(await ledger("capped")).toEqual([expect.objectContaining({ cost: HOLD, uncollected: BIG - HOLD })]);
    expect((await h.gw.store.keyBudgetUse(id, 0)).spent).toBe(BigInt(HOLD));
    const refused = await expectError(await ask(key), 402, "insufficient_credits", null);
    expect(refused.message).toContain("budget");
  });

  test("a BYOK request leaves the budget untouched, even an exhausted one", async () => {
    await h.gw.store.ensureAccount("byok-budget", Date.now());
    const secret = loadSecret(h.gw.db, { GATEWAY_SECRET: "test-secret" });
    await h.gw.store.setByok({
      account: "byok-budget",
      provider: "openai",
      secret: encrypt(secret, "byok-budget", "openai", "sk-own-key-4242"),
      last4: "4242",
      updatedAt: Date.now(),
    });
    const { key, id } = await keyWithBudget("byok-budget", 1n);
    await expect.poll(async () => (await ask(key)).status, { timeout: 2000 }).toBe(200);
    expect(h.fake.requests.at(-1)!.headers.authorization).toBe("Bearer sk-own-key-4242");
    expect(await h.gw.store.keyBudgetUse(id, 0)).toEqual({ spent: 0n, held: 0 });
    expect((await ledger("byok-budget")).at(-1)).toMatchObject({ cost: 0, list_cost: 4_800 });
  });
});

describe("GET /v1/key", () => {
  test("name, account, masked, expiry, rate limit, budget and balance; money as decimal strings", async () => {
    await h.gw.addCredits("2.5", "info");
    const expires = Date.parse("2099-01-01T00:00:00Z");
    const key = await h.gw.createKey({ account: "info", name: "info-key", rpm: 7, expiresAt: expires });
    const id = (await h.gw.store.findKey("info-key"))!.id;
    await h.gw.store.updateKey(id, { budget: 1_000_000_000n, budgetPeriod: "month" }, Date.now());
    expect((await ask(key)).status).toBe(200);
    const res = await h.gw.fetch(`${h.gw.url}/v1/key`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("7");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("5"); // the chat request and this one
    expect(await res.json()).toEqual({
      name: "info-key",
      account: "info",
      masked: `sk-…${key.slice(-4)}`,
      expires_at: "2099-01-01T00:00:00.000Z",
      rate_limit: { requests: 7, window: 60 },
      budget: { limit: "1", period: "month", spent: "0.0000048", remaining: "0.9999952", level: "key" },
      balance: "2.4999952",
    });
  });

  test("a key without a budget: budget null, the config's key limit; no key: 401", async () => {
    const key = await h.gw.createKey({ account: "plain" });
    const body = await (await h.gw.fetch(`${h.gw.url}/v1/key`, { headers: bearer(key) })).json();
    expect(body).toMatchObject({ account: "plain", expires_at: null, rate_limit: { requests: 1000, window: 60 }, budget: null, balance: "0" });
    await expectError(await h.gw.fetch(`${h.gw.url}/v1/key`), 401, "authentication_error", "invalid_api_key");
  });

  test("described in /v1/openapi.json", async () => {
    const doc = (await (await h.gw.fetch(`${h.gw.url}/v1/openapi.json`)).json()) as any;
    expect(doc.paths["/v1/key"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/KeyInfo" });
    expect(Object.keys(doc.components.schemas.KeyInfo.properties).sort()).toEqual([
      "account",
      "balance",
      "budget",
      "expires_at",
      "masked",
      "name",
      "rate_limit",
    ]);
  });
});

describe("budget periods (the store, with explicit times)", () => {
  const DAY = 86_400_000;
  test("calendar periods in UTC: day, ISO week from Monday, month, total", () => {
    const at = Date.parse("2026-03-05T17:30:00Z"); // a Thursday
    expect(new Date(periodStart("day", at)).toISOString()).toBe("2026-03-05T00:00:00.000Z");
    expect(new Date(periodStart("week", at)).toISOString()).toBe("2026-03-02T00:00:00.000Z");
    expect(new Date(periodStart("week", Date.parse("2026-03-08T23:59:59Z"))).toISOString()).toBe("2026-03-02T00:00:00.000Z");
    expect(new Date(periodStart("week", Date.parse("2026-03-09T00:00:00Z"))).toISOString()).toBe("2026-03-09T00:00:00.000Z");
    expect(new Date(periodStart("month", at)).toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(periodStart("total", at)).toBe(0);
  });

  test("a daily budget rolls over at UTC midnight; a late settlement counts in its own day", async () => {
    const store = openSqliteStore(join(tempDir(), "periods.db"));
    const day1 = Date.parse("2026-03-05T10:00:00Z");
    const day2 = day1 + DAY;
    await store.addCredits("p", 1_000_000n, day1);
    await store.createKey({
      id: "key_p",
      name: "p",
      account: "p",
      hash: "h",
      last4: "abcd",
      createdAt: day1,
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
      rpm: null,
      budget: 10_000n,
      budgetPeriod: "day",
    });
    const entry = (requestId: string, createdAt: number, cost: number) =>
      ledgerEntry({ requestId, createdAt, account: "p", keyId: "key_p", provider: "x", cost });
    const hold = (at: number) => ({ keyId: "key_p", limit: 10_000n, since: periodStart("day", at) });
    expect(await store.reserve("r1", "p", 8_000, hold(day1))).toBe(true);
    expect(await store.reserve("late", "p", 1_000, hold(day1))).toBe(true);
    expect(await store.reserve("r2", "p", 1_001, hold(day1))).toBe(false); // 8,000 + 1,000 + 1,001 > 10,000
    await store.settle("r1", entry("r1", day1, 8_000), []);
    expect(await store.keyBudgetUse("key_p", periodStart("day", day1))).toEqual({ spent: 8_000n, held: 1_000 });
    // The next day: spend starts again from zero; only the open hold still counts.
    expect(await store.keyBudgetUse("key_p", periodStart("day", day2))).toEqual({ spent: 0n, held: 1_000 });
    expect(await store.reserve("r3", "p", 9_000, hold(day2))).toBe(true);
    await store.settle("r3", entry("r3", day2, 9_000), []);
    // A request of day one settling late is day one's: day two's spend is unchanged.
    await store.settle("late", entry("late", day1, 1_000), []);
    expect(await store.keyBudgetUse("key_p", periodStart("day", day2))).toEqual({ spent: 9_000n, held: 0 });
    // Changing the period recounts from the ledger: all of it this month.
    await store.updateKey("key_p", { budgetPeriod: "month" }, day2);
    expect((await store.keyBudgetUse("key_p", periodStart("month", day2))).spent).toBe(18_000n);
    expect(await store.balance("p")).toBe(1_000_000n - 18_000n);
    await store.close();
  });
});

describe("the CLI (child process)", () => {
  let db: string;
  const run = (...args: string[]) => gateway(["--db", db, ...args], { cwd: tempDir() });
  beforeAll(() => {
    assertBuilt();
    db = join(tempDir(), "keys.db");
  });

  test("keys create --budget, keys update, keys list show budget, period and spent", async () => {
    const created = await run("keys", "create", "--name", "ci", "--budget", "12.5", "--budget-period", "month", "--json");
    expect(created.exitCode).toBe(0);
    expect(created.json).toMatchObject({ name: "ci", budget: "12.5", budget_period: "month", spent: "0" });
    expect((await run("keys", "list", "--json")).json).toEqual([
      expect.objectContaining({ name: "ci", budget: "12.5", budget_period: "month", spent: "0", rpm: null }),
    ]);
    const updated = await run("keys", "update", "ci", "--budget", "3", "--budget-period", "day", "--rpm", "20", "--expires", "30d", "--json");
    expect(updated.json).toMatchObject({ budget: "3", budget_period: "day", rpm: 20 });
    expect(updated.json.expires_at).not.toBeNull();
    const text = await run("keys", "list");
    expect(text.stdout).toMatch(/BUDGET\s+PERIOD\s+SPENT/);
    expect(text.stdout).toMatch(/\$3\s+day\s+\$0/);
    expect((await run("keys", "update", "ci", "--no-budget", "--json")).json).toMatchObject({ budget: null, budget_period: "day" });
    const bad = await run("keys", "update", "ci", "--budget-period", "year");
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain("day, week, month, total");
    expect((await run("keys", "update", "ci")).exitCode).toBe(2);
  });

  test("gateway usage --json shows what could not be collected", async () => {
    const file = join(tempDir(), "usage.db");
    const store = openSqliteStore(file);
    await store.addCredits("u", 100_000n, Date.now());
    await store.createKey({
      id: "key_u",
      name: "u",
      account: "u",
      hash: "hu",
      last4: "wxyz",
      createdAt: Date.now(),
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
      rpm: null,
    });
    await store.settle(
      null,
      ledgerEntry({ requestId: "req_u", account: "u", keyId: "key_u", provider: "x", promptTokens: 2001, completionTokens: 5, cost: 303_150 }),
      [],
    );
    await store.close();
    const usage = await gateway(["--db", file, "usage", "--json"], { cwd: tempDir() });
    expect(usage.json).toMatchObject({
      cost: "0.0001",
      list_cost: "0.00030315",
      uncollected: "0.00020315",
      by_key: [expect.objectContaining({ key_id: "key_u", uncollected: "0.00020315" })],
    });
    const text = await gateway(["--db", file, "usage"], { cwd: tempDir() });
    expect(text.stdout).toContain("$0.0001 charged, $0.00020315 uncollected");
  });
});
