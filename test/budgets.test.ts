/**
 * Budgets at every level (docs/limits.md "Budgets"): the account's, a member's (every key they
 * created) and a key's each admit exactly what they cover under concurrency, refuse with a 402
 * naming the level and its period (`param` under compat openai), count spend exactly, roll over
 * with their period, never count BYOK; GET /v1/key shows the tightest level. Runs on SQLite and
 * on PostgreSQL + Redis (vitest.config.ts STORE_TESTS).
 */
import { describe, expect, test } from "vitest";
import { generateKey, hashKey, newKeyId } from "../src/access/keys.js";
import { encrypt, loadSecret } from "../src/access/byok.js";
import { periodStart, type BudgetPeriod } from "../src/core/budget-periods.js";
import { ledgerEntry } from "./helpers/ledger-entry.js";
import { useGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { recordSecret } from "./helpers/secrets.js";

const MODEL = "openai/gpt-4o-mini";
const ok = () => completion("ok", { prompt_tokens: 12, completion_tokens: 5 });
const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: { openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-platform-key-0002" } },
    models: [{ id: MODEL, pricing: { prompt: "0.15", completion: "0.6" }, max_output: 16384, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
    limits: { key: { requests: 1000, window: 60 } },
  }),
  { fallback: ok },
);

// Worst case of this body: 34 prompt tokens (the byte bound) × 150 + 10 × 600 = 11,100 nano-USD;
// the fake reports 12 + 5 tokens: 4,800 charged.
const HOLD = 11_100;
const COST = 4_800;
const ask = (key: string) =>
  h.gw.fetch(`${h.gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 10 }),
  });

/** A key as the dashboard creates it: recorded with the member who created it. */
async function memberKey(account: string, createdBy: string | null, budget?: { amount: bigint; period: BudgetPeriod }) {
  const key = generateKey();
  recordSecret(key);
  await h.gw.store.ensureAccount(account, Date.now());
  const id = newKeyId();
  await h.gw.store.createKey({
    id,
    name: `k-${id}`,
    account,
    hash: hashKey(key),
    last4: key.slice(-4),
    createdAt: Date.now(),
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    rpm: null,
    createdBy,
    ...(budget && { budget: budget.amount, budgetPeriod: budget.period }),
  });
  return { key, id };
}

const use = async (account: string, member: string | null) => (await h.gw.store.listBudgets(account, Date.now())).find((b) => b.member === member)!;
const keyInfo = async (key: string) =>
  ((await (await h.gw.fetch(`${h.gw.url}/v1/key`, { headers: bearer(key) })).json()) as { budget: Record<string, string> | null }).budget;

/** 3N concurrent requests held upstream until all are decided (`admitted` of them answered): the statuses and the 402 bodies. */
async function race(key: string, n: number, admitted = n) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  h.fake.fallback = () => ({ ...(ok() as { json: unknown }), waitFor: gate });
  const refusals: Array<{ message: string; param: string | null; code: string | null }> = [];
  try {
    const pending = Array.from({ length: 3 * n }, () =>
      ask(key).then(async (r) => {
        if (r.status === 402) refusals.push(((await r.json()) as { error: (typeof refusals)[number] }).error);
        return r.status;
      }),
    );
    await expect.poll(() => refusals.length, { timeout: 15_000 }).toBe(3 * n - admitted);
    release();
    return { statuses: await Promise.all(pending), refusals };
  } finally {
    release();
    h.fake.fallback = ok;
  }
}

const N = 4;

describe("3N concurrent requests against a budget covering exactly N: N admitted, the rest 402 naming the level", () => {
  test("the account's budget (a cap on top of the balance)", async () => {
    await h.gw.addCredits("1", "acct");
    const { key } = await memberKey("acct", null);
    await h.gw.store.setBudget({ account: "acct", member: null, amount: BigInt(N * HOLD), period: "month" }, Date.now());
    const { statuses, refusals } = await race(key, N);
    expect(statuses.filter((s) => s === 200)).toHaveLength(N);
    expect(statuses.filter((s) => s === 402)).toHaveLength(2 * N);
    expect(refusals[0]!.message).toMatch(/the account's budget has \$0 left of \$0\.0000444 per month/);
    expect(refusals.every((r) => r.param === "account" && r.code === null)).toBe(true);
    expect(await use("acct", null)).toMatchObject({ spent: BigInt(N * COST), held: 0 });
    expect(await h.gw.store.balance("acct")).toBe(1_000_000_000n - BigInt(N * COST));
  });

  test("a member's budget covers every key they created, and only theirs", async () => {
    await h.gw.addCredits("1", "team");
    const first = await memberKey("team", "ann@example.com");
    const second = await memberKey("team", "ann@example.com");
    const cli = await memberKey("team", null);
    await h.gw.store.setBudget({ account: "team", member: "ann@example.com", amount: BigInt(N * HOLD), period: "week" }, Date.now());
    h.fake.queue(ok());
    expect((await ask(second.key)).status).toBe(200); // the other key of hers takes 4,800 of the budget
    const { statuses, refusals } = await race(first.key, N, N - 1);
    // N × 11,100 − 4,800 leaves room for N − 1 holds.
    expect(statuses.filter((s) => s === 200)).toHaveLength(N - 1);
    expect(refusals[0]!.message).toMatch(/the budget of the member who created this API key has \$0\.00000\d+ left of \$0\.0000444 per week/);
    expect(refusals.every((r) => r.param === "member")).toBe(true);
    expect(await use("team", "ann@example.com")).toMatchObject({ spent: BigInt(N * COST), held: 0 });
    h.fake.queue(ok());
    expect((await ask(cli.key)).status).toBe(200); // a key she did not create is not hers to limit
  });

  test("the key's own budget", async () => {
    await h.gw.addCredits("1", "keyed");
    const { key, id } = await memberKey("keyed", "kim@example.com", { amount: BigInt(N * HOLD), period: "day" });
    const { statuses, refusals } = await race(key, N);
    expect(statuses.filter((s) => s === 200)).toHaveLength(N);
    expect(refusals[0]!.message).toMatch(/this API key's budget has \$0 left of \$0\.0000444 per day/);
    expect(refusals.every((r) => r.param === "key")).toBe(true);
    expect(await h.gw.store.keyBudgetUse(id, periodStart("day", Date.now()))).toEqual({ spent: BigInt(N * COST), held: 0 });
  });
});

describe("periods, BYOK, GET /v1/key", () => {
  const entry = (account: string, keyId: string, createdAt: number, cost: number) =>
    ledgerEntry({ requestId: `req-${createdAt}-${cost}`, createdAt, account, keyId, model: MODEL, provider: "openai", cost });

  test("a daily budget spent yesterday admits again today (00:00 UTC); spent today, it refuses", async () => {
    await h.gw.addCredits("1", "daily");
    const { key, id } = await memberKey("daily", null);
    const yesterday = periodStart("day", Date.now()) - 3_600_000;
    await h.gw.store.setBudget({ account: "daily", member: null, amount: BigInt(2 * HOLD), period: "day" }, yesterday); // set yesterday
    const spent = entry("daily", id, yesterday, 2 * HOLD);
    await h.gw.store.settle(null, spent, []); // yesterday's requests used all of yesterday's budget
    expect(spent.uncollected).toBe(0);
    expect(await keyInfo(key)).toEqual({ limit: "0.0000222", period: "day", spent: "0", remaining: "0.0000222", level: "account" });
    h.fake.queue(ok());
    expect((await ask(key)).status).toBe(200);
    await h.gw.store.settle(null, entry("daily", id, Date.now(), 2 * HOLD - COST - HOLD + 1), []);
    const res = await ask(key);
    expect(res.status).toBe(402);
    const refused = ((await res.json()) as { error: { message: string } }).error;
    expect(refused).toMatchObject({ type: "insufficient_credits", code: null, param: "account" });
    expect(refused.message).toContain("the account's budget has $0.000011099 left of $0.0000222 per day");
    expect(await use("daily", null)).toMatchObject({ spent: BigInt(2 * HOLD - HOLD + 1), held: 0 });
  });

  test("a BYOK request never counts against any budget, even exhausted ones", async () => {
    await h.gw.store.ensureAccount("own", Date.now());
    const secret = loadSecret(h.gw.db, { GATEWAY_SECRET: "test-secret" });
    await h.gw.store.setByok({
      account: "own",
      provider: "openai",
      secret: encrypt(secret, "own", "openai", "sk-own-key-5151"),
      last4: "5151",
      updatedAt: Date.now(),
    });
    const { key, id } = await memberKey("own", "olga@example.com", { amount: 0n, period: "total" });
    await h.gw.store.setBudget({ account: "own", member: null, amount: 0n, period: "month" }, Date.now());
    await h.gw.store.setBudget({ account: "own", member: "olga@example.com", amount: 0n, period: "day" }, Date.now());
    await expect.poll(async () => (await ask(key)).status, { timeout: 3000 }).toBe(200);
    expect(h.fake.requests.at(-1)!.headers.authorization).toBe("Bearer sk-own-key-5151");
    expect(await use("own", null)).toMatchObject({ spent: 0n, held: 0 });
    expect(await use("own", "olga@example.com")).toMatchObject({ spent: 0n, held: 0 });
    expect(await h.gw.store.keyBudgetUse(id, 0)).toEqual({ spent: 0n, held: 0 });
  });

  test("GET /v1/key's budget is the tightest level, with its level", async () => {
    await h.gw.addCredits("1", "tight");
    const { key } = await memberKey("tight", "tom@example.com", { amount: 3_000_000n, period: "total" });
    expect(await keyInfo(key)).toEqual({ limit: "0.003", period: "total", spent: "0", remaining: "0.003", level: "key" });
    await h.gw.store.setBudget({ account: "tight", member: null, amount: 2_000_000n, period: "month" }, Date.now());
    expect(await keyInfo(key)).toMatchObject({ limit: "0.002", period: "month", level: "account" });
    await h.gw.store.setBudget({ account: "tight", member: "tom@example.com", amount: 1_000_000n, period: "week" }, Date.now());
    h.fake.queue(ok());
    expect((await ask(key)).status).toBe(200);
    expect(await keyInfo(key)).toEqual({ limit: "0.001", period: "week", spent: "0.0000048", remaining: "0.0009952", level: "member" });
    await h.gw.store.removeBudget("tight", "tom@example.com");
    expect(await keyInfo(key)).toEqual({ limit: "0.002", period: "month", spent: "0.0000048", remaining: "0.0019952", level: "account" });
  });

  test("with every level set, the member's the tightest: GET /v1/key says member, and the 402 names the member's budget", async () => {
    await h.gw.addCredits("1", "trio");
    const { key } = await memberKey("trio", "tia@example.com", { amount: 1_000_000n, period: "total" });
    await h.gw.store.setBudget({ account: "trio", member: null, amount: 1_000_000n, period: "month" }, Date.now());
    // Room for one request's hold (11,100) and not two once it spent 4,800.
    await h.gw.store.setBudget({ account: "trio", member: "tia@example.com", amount: BigInt(HOLD + COST - 100), period: "day" }, Date.now());
    expect(await keyInfo(key)).toEqual({ limit: "0.0000158", period: "day", spent: "0", remaining: "0.0000158", level: "member" });
    h.fake.queue(ok());
    expect((await ask(key)).status).toBe(200);
    expect(await keyInfo(key)).toEqual({ limit: "0.0000158", period: "day", spent: "0.0000048", remaining: "0.000011", level: "member" });
    const refused = await ask(key);
    expect(refused.status).toBe(402);
    const { error } = (await refused.json()) as { error: { message: string; param: string | null; code: string | null; type: string } };
    expect(error.message).toMatch(/the budget of the member who created this API key has \$0\.000011 left of \$0\.0000158 per day/);
    expect(error).toMatchObject({ param: "member", code: null });
    expect(await use("trio", "tia@example.com")).toMatchObject({ spent: BigInt(COST), held: 0 });
  });
});
