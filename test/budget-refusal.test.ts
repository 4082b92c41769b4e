/**
 * A request a budget refuses (docs/limits.md "Budgets", docs/alerts.md "A refusal is 100 %"): its
 * 402 names that budget (level, period, limit, spent) and that budget's own fix, never "Add funds"
 * while the balance has room; and it fires the budget's 100 % alert, once per period, to a real
 * webhook receiver on loopback, even with the spend below 100 % (the spend stops short of the limit
 * because the next request's worst case does not fit). Runs on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { BudgetPeriod } from "../src/core/budget-periods.js";
import { setAlertSettings } from "../src/operations/alert-settings.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { hook, receiver, verify } from "./helpers/webhook.js";

const MODEL = "openai/gpt-4o-mini";
/** $0.15 per 1M prompt tokens: one "unit" is 150 nano-USD; the answer's usage costs `units` of them. */
const costing = (units: number) => completion("ok", { prompt_tokens: units - 4, completion_tokens: 1 });
/** A budget of 4,000 units ($0.0006); 3,400 of them spent is 85 %. */
const BUDGET = 600_000n;

let fake: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  fake = await startFakeUpstream(() => costing(10));
  gw = await startGateway(openaiConfig(fake.url, { server: { compat: "openai" }, alerts: { pollMs: 50, retryBaseMs: 300, timeoutMs: 500 } }));
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

/** A key of `account`, created by `member` (as the dashboard records it), with a key budget when given; and its id. */
async function keyOf(account: string, opts: { member?: string; budget?: { amount: bigint; period: BudgetPeriod } } = {}): Promise<{ key: string; id: string }> {
  const key = await gw.createKey({ account, createdBy: opts.member, budget: opts.budget });
  return { key, id: (await gw.store.listKeys(account)).at(-1)!.id };
}

const ask = (key: string, maxTokens: number) =>
  gw.fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: maxTokens }),
  });

async function refused(key: string, maxTokens = 1_000): Promise<{ message: string; param: string | null }> {
  const res = await ask(key, maxTokens);
  expect(res.status).toBe(402);
  const { error } = (await res.json()) as { error: { type: string; code: null; message: string; param: string | null } };
  expect(error.type).toBe("insufficient_credits");
  expect(error.code).toBeNull();
  return error;
}

describe("the 402 of a budget names it and its fix", () => {
  test("the account's budget: limit, period and spent; `budgets set` for that account and period; no 'Add funds' with $4.99 left", async () => {
    await gw.addCredits("5", "acct-a");
    await gw.store.setBudget({ account: "acct-a", member: null, amount: BUDGET, period: "month" }, Date.now());
    const { key } = await keyOf("acct-a");
    fake.queue(costing(3_400));
    expect((await ask(key, 10)).status).toBe(200);
    const error = await refused(key);
    expect(error.param).toBe("account");
    expect(error.message).toMatch(
      /^This request may cost up to \$0\.000\d+ and the account's budget has \$0\.00009 left of \$0\.0006 per month \(\$0\.00051 spent\): it asks for up to 1000 tokens \(max_tokens\), but the budget can pay for at most \d+\. Raise the budget \(gateway budgets set <usd> --account acct-a --period month\) or lower max_tokens\.$/,
    );
    expect(error.message).not.toMatch(/Add funds|credits add/);
  });

  test("a member's budget: `budgets set --member`, without the member's email; its period", async () => {
    await gw.addCredits("5", "acct-m");
    await gw.store.setBudget({ account: "acct-m", member: "ann@example.com", amount: BUDGET, period: "week" }, Date.now());
    const { key } = await keyOf("acct-m", { member: "ann@example.com" });
    const error = await refused(key, 5_000);
    expect(error.param).toBe("member");
    expect(error.message).toContain("the budget of the member who created this API key has $0.0006 left of $0.0006 per week ($0 spent)");
    expect(error.message).toContain("Raise the budget (gateway budgets set <usd> --account acct-m --member <email of the key's creator> --period week)");
    expect(error.message).not.toContain("ann@example.com");
    expect(error.message).not.toMatch(/Add funds|credits add/);
  });

  test("a key's budget: `keys update <id> --budget`", async () => {
    await gw.addCredits("5", "acct-k");
    const { key, id } = await keyOf("acct-k", { budget: { amount: BUDGET, period: "day" } });
    const error = await refused(key, 5_000);
    expect(error.param).toBe("key");
    expect(error.message).toContain("this API key's budget has $0.0006 left of $0.0006 per day ($0 spent)");
    expect(error.message).toContain(`Raise the budget (gateway keys update ${id} --budget <usd>) or lower max_tokens.`);
    expect(error.message).not.toMatch(/Add funds|credits add/);
  });

  test("a budget and the balance both short: the budget is named, and adding funds is said too", async () => {
    await gw.addCredits("0.0001", "acct-both");
    await gw.store.setBudget({ account: "acct-both", member: null, amount: BUDGET, period: "month" }, Date.now());
    const { key } = await keyOf("acct-both");
    const error = await refused(key, 10_000);
    expect(error.param).toBe("account");
    expect(error.message).toContain("Raise the budget (gateway budgets set <usd> --account acct-both --period month) or lower max_tokens.");
    expect(error.message).toMatch(/ The balance \(\$0\.0001\) is short too: add funds \(gateway credits add\)\.$/);
  });
});

describe("a refusal by a budget is its 100 % alert", () => {
  test("spend at 85 %, the next request refused: one signed 100 % delivery with reason refused, once per period; 50 and 80 % as before", async () => {
    const r = await receiver();
    try {
      await gw.addCredits("5", "acct-alert");
      const secret = await hook(gw, r.url, "acct-alert");
      const { key, id } = await keyOf("acct-alert", { budget: { amount: BUDGET, period: "month" } });
      fake.queue(costing(3_400));
      expect((await ask(key, 10)).status).toBe(200);
      await expect.poll(() => r.got.length, { timeout: 5_000 }).toBe(2); // 50 and 80 %
      await refused(key);
      await expect.poll(() => r.got.length, { timeout: 5_000 }).toBe(3);
      const last = r.bodies()[2]!;
      expect(last).toMatchObject({
        type: "budget.threshold",
        account: "acct-alert",
        level: "key",
        key: id,
        threshold_percent: 100,
        limit: "0.0006",
        spent: "0.00051",
        remaining: "0.00009",
        period: "month",
        reason: "refused",
      });
      expect(
        r
          .bodies()
          .slice(0, 2)
          .map((b) => [b.threshold_percent, b.reason]),
      ).toEqual([
        [50, undefined],
        [80, undefined],
      ]);
      for (const g of r.got) expect(verify(secret, g)).toBe(true);
      // Refused again, in the same period: no second 100 %.
      await refused(key);
      await refused(key, 2_000);
      await new Promise((res) => setTimeout(res, 500));
      expect(r.got).toHaveLength(3);
      const deliveries = (await gw.store.listDeliveries({ account: "acct-alert", limit: 10 })).map((d) => d.status);
      expect(deliveries).toEqual(["delivered", "delivered", "delivered"]);
    } finally {
      await r.close();
    }
  });

  test("the account's budget refusing at 0 % spent fires its 100 %; thresholds without 100 send nothing on a refusal", async () => {
    const r = await receiver();
    try {
      for (const account of ["acct-zero", "acct-no100"]) {
        await gw.addCredits("5", account);
        await gw.store.setBudget({ account, member: null, amount: BUDGET, period: "day" }, Date.now());
      }
      await setAlertSettings(gw.store, "acct-no100", { percents: "50,80" }, Date.now(), { actor: "test", ip: null });
      await hook(gw, r.url, "acct-zero");
      await hook(gw, r.url, "acct-no100");
      await refused((await keyOf("acct-no100")).key, 5_000);
      await refused((await keyOf("acct-zero")).key, 5_000);
      await expect.poll(() => r.got.length, { timeout: 5_000 }).toBe(1);
      await new Promise((res) => setTimeout(res, 500));
      expect(r.bodies()).toEqual([
        expect.objectContaining({
          account: "acct-zero",
          level: "account",
          threshold_percent: 100,
          spent: "0",
          remaining: "0.0006",
          period: "day",
          reason: "refused",
        }),
      ]);
    } finally {
      await r.close();
    }
  });
});
