/**
 * Alerts (docs/alerts.md) end to end: a real gateway, the OpenAI fake upstream, and webhook
 * receivers on loopback (node:http). Each threshold crossed is delivered once per webhook, signed
 * (the HMAC checked here); a failing receiver is retried; a hung one slows no request and is cut
 * by the timeout; a delivery pending at a stop is sent by the next gateway on the same database.
 */
import { join } from "node:path";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { setAlertSettings } from "../src/operations/alert-settings.js";
import { listDeliveries } from "../src/operations/alert-deliveries.js";
import { addUser } from "../src/operations/dashboard-users.js";
import { generateKey, hashKey, newKeyId } from "../src/access/keys.js";
import { tempDir } from "./helpers/cli.js";
import { call, cookieOf, PASSWORD, SETUP, tokenOf } from "./helpers/dashboard.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { createTestDatabase, onPostgres } from "./helpers/services.js";
import { recordSecret } from "./helpers/secrets.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { hook, receiver, verify } from "./helpers/webhook.js";

const MODEL = "openai/gpt-4o-mini";
/** $0.15 per 1M prompt tokens: one "unit" of 150 nano-USD per prompt token; one completion token is 4 units. */
const costing = (units: number) => completion("ok", { prompt_tokens: units - 4, completion_tokens: 1 });
const ALERTS = { pollMs: 50, retryBaseMs: 300, timeoutMs: 500 };
/** Who the test's own changes are recorded as in the audit log (docs/audit.md). */
const TEST_BY = { actor: "test", ip: null };

let fake: FakeUpstream;
let gw: TestGateway;

async function keyFor(g: TestGateway, account: string, budgetNano?: bigint): Promise<{ key: string; id: string }> {
  const key = await g.createKey({ account });
  const id = (await g.store.listKeys(account)).at(-1)!.id;
  if (budgetNano !== undefined) await g.store.updateKey(id, { budget: budgetNano, budgetPeriod: "month" }, Date.now());
  return { key, id };
}

/** A key as the dashboard creates it: recorded with the member who created it. */
async function createdBy(g: TestGateway, account: string, member: string): Promise<string> {
  const key = generateKey();
  recordSecret(key);
  const id = newKeyId();
  await g.store.createKey({
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
    createdBy: member,
  });
  return key;
}

/** A dashboard user of `account` with `role`, signed in: their session cookie. */
async function signedIn(g: TestGateway, email: string, account: string, role: "owner" | "member"): Promise<string> {
  const { link } = await addUser(g.store, { email, account, admin: false, role }, g.url, Date.now(), SETUP);
  recordSecret(tokenOf(link));
  const r = await call(g, "POST", "/dashboard/api/password", { body: { token: tokenOf(link), password: PASSWORD } });
  expect(r.status).toBe(200);
  return cookieOf(r);
}

const ask = (g: TestGateway, key: string) =>
  g.fetch(`${g.url}/v1/chat/completions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 10 }),
  });

beforeAll(async () => {
  fake = await startFakeUpstream(() => costing(10));
  gw = await startGateway(openaiConfig(fake.url, { alerts: ALERTS, limits: { key: { requests: 10_000, window: 60 } } }));
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

describe("thresholds", () => {
  test("50, 80 and 100 % of a key budget: one signed delivery each, per webhook, as requests spend it", async () => {
    const mine = await receiver();
    const operator = await receiver();
    try {
      await gw.addCredits("1", "acme");
      const secret = await hook(gw, mine.url, "acme");
      const opSecret = await hook(gw, operator.url, null, "operator-secret-0123456789");
      await hook(gw, (await receiver()).url.replace(/\/hook$/, "/other"), "someone-else"); // another account's: gets nothing
      const { key, id } = await keyFor(gw, "acme", 1_500_000n); // 10,000 units of 150 nano-USD
      // 40 % (nothing), 55 % (50), 85 % (80), 100 % (100), then refused by the budget (no charge, no alert).
      // Each step waits for its deliveries: the check runs after the answer, so a next request
      // settling first would have it read that one's spend too.
      for (const [units, delivered] of [
        [4_000, 0],
        [1_500, 1],
        [3_000, 2],
        [1_500, 3],
      ] as const) {
        fake.queue(costing(units));
        expect((await ask(gw, key)).status).toBe(200);
        await expect.poll(() => mine.got.length, { timeout: 5_000 }).toBe(delivered);
      }
      expect((await ask(gw, key)).status).toBe(402);
      await expect.poll(() => mine.got.length + operator.got.length, { timeout: 5_000 }).toBe(6);
      await new Promise((r) => setTimeout(r, 400)); // nothing more arrives
      expect(mine.got.length).toBe(3);
      expect(operator.got.length).toBe(3);
      for (const r of mine.got) expect(verify(secret, r)).toBe(true);
      for (const r of operator.got) expect(verify(opSecret, r)).toBe(true);
      expect(verify(secret, operator.got[0]!)).toBe(false);
      const bodies = mine.bodies().sort((a, b) => Number(a.threshold_percent) - Number(b.threshold_percent));
      expect(bodies.map((b) => [b.threshold_percent, b.spent, b.remaining])).toEqual([
        [50, "0.000825", "0.000675"],
        [80, "0.001275", "0.000225"],
        [100, "0.0015", "0"],
      ]);
      expect(bodies[0]).toEqual({
        id: expect.stringMatching(/^alr_/),
        type: "budget.threshold",
        account: "acme",
        level: "key",
        key: id,
        threshold_percent: 50,
        limit: "0.0015",
        spent: "0.000825",
        remaining: "0.000675",
        period: "month",
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      });
      const log = await listDeliveries(gw.store, { account: "acme" });
      expect(log).toHaveLength(6);
      expect(log.every((d) => d.status === "delivered" && d.attempts === 1 && d.last_status === 200)).toBe(true);
    } finally {
      await mine.close();
      await operator.close();
    }
  });

  test("the first delivery arrives within 5 s of the crossing", async () => {
    const r = await receiver();
    try {
      await gw.addCredits("1", "quick");
      await hook(gw, r.url, "quick");
      const { key } = await keyFor(gw, "quick", 300_000n);
      fake.queue(costing(1_000)); // 150,000 of 300,000: 50 %
      const crossed = Date.now();
      expect((await ask(gw, key)).status).toBe(200);
      await expect.poll(() => r.got.length, { timeout: 5_000 }).toBe(1);
      expect(r.got[0]!.at - crossed).toBeLessThan(5_000);
    } finally {
      await r.close();
    }
  });

  test("a balance below the account's amount: one balance.low, not again until credits are added", async () => {
    const r = await receiver();
    try {
      await gw.addCredits("0.002", "lowly");
      const secret = await hook(gw, r.url, "lowly");
      await setAlertSettings(gw.store, "lowly", { lowBalance: "0.0015" }, Date.now(), TEST_BY);
      const { key } = await keyFor(gw, "lowly");
      fake.queue(costing(2_000), costing(1_000)); // 300,000 (balance 0.0017: above), then 150,000 (0.00155)
      expect((await ask(gw, key)).status).toBe(200);
      expect((await ask(gw, key)).status).toBe(200);
      await new Promise((res) => setTimeout(res, 300));
      expect(r.got).toHaveLength(0);
      fake.queue(costing(1_000), costing(1_000)); // 0.0014, then 0.00125: one alert
      expect((await ask(gw, key)).status).toBe(200);
      expect((await ask(gw, key)).status).toBe(200);
      await expect.poll(() => r.got.length).toBe(1);
      await new Promise((res) => setTimeout(res, 300));
      expect(r.got).toHaveLength(1);
      expect(verify(secret, r.got[0]!)).toBe(true);
      expect(r.bodies()[0]).toMatchObject({
        type: "balance.low",
        account: "lowly",
        level: "account",
        limit: "0.0015",
        remaining: "0.0014",
        spent: null,
        period: null,
      });
      expect(r.bodies()[0]).not.toHaveProperty("threshold_percent");
      // A top-up that still leaves it low alerts again, once.
      await gw.addCredits("0.0001", "lowly");
      fake.queue(costing(10), costing(10));
      expect((await ask(gw, key)).status).toBe(200);
      expect((await ask(gw, key)).status).toBe(200);
      await expect.poll(() => r.got.length).toBe(2);
      await new Promise((res) => setTimeout(res, 300));
      expect(r.got).toHaveLength(2);
    } finally {
      await r.close();
    }
  });
});

describe("account and member budgets", () => {
  test("each crossing 50, 80 and 100 %: one signed delivery per threshold with its level, member, limit, spent and remaining; the banner shows them", async () => {
    const r = await receiver();
    try {
      const owner = await signedIn(gw, "olive@example.com", "org", "owner");
      const ann = await signedIn(gw, "ann@example.com", "org", "member");
      const bob = await signedIn(gw, "bob@example.com", "org", "member");
      await gw.addCredits("1", "org");
      const secret = await hook(gw, r.url, "org");
      // Ann's budget: 1,500,000 nano-USD a month (10,000 units); the account's: 3,000,000 a day (20,000 units).
      await gw.store.setBudget({ account: "org", member: "ann@example.com", amount: 1_500_000n, period: "month" }, Date.now());
      await gw.store.setBudget({ account: "org", member: null, amount: 3_000_000n, period: "day" }, Date.now());
      await gw.store.setBudget({ account: "org", member: "bob@example.com", amount: 15_000_000n, period: "week" }, Date.now());
      const annKey = await createdBy(gw, "org", "ann@example.com");
      const bobKey = await createdBy(gw, "org", "bob@example.com");
      // Ann: 40 % (account 20 %), 55 % (member 50), 85 % (member 80), 100 % (member 100; account 50).
      // Each step waits for its deliveries, so every check reads the spend its request left.
      for (const [units, delivered] of [
        [4_000, 0],
        [1_500, 1],
        [3_000, 2],
        [1_500, 4],
      ] as const) {
        fake.queue(costing(units));
        expect((await ask(gw, annKey)).status).toBe(200);
        await expect.poll(() => r.got.length, { timeout: 5_000 }).toBe(delivered);
      }
      // Bob (his budget: 10 % spent in the end): the account to 70 %, 80 %, then 100 %; his own reaches no threshold.
      for (const [units, delivered] of [
        [4_000, 4],
        [2_000, 5],
        [4_000, 6],
      ] as const) {
        fake.queue(costing(units));
        expect((await ask(gw, bobKey)).status).toBe(200);
        await expect.poll(() => r.got.length, { timeout: 5_000 }).toBe(delivered);
      }
      expect((await ask(gw, annKey)).status).toBe(402);
      await expect.poll(() => r.got.length, { timeout: 5_000 }).toBe(6);
      await new Promise((res) => setTimeout(res, 400)); // nothing more arrives
      expect(r.got).toHaveLength(6);
      for (const g of r.got) expect(verify(secret, g)).toBe(true);
      const seen = r
        .bodies()
        .map((b) => [b.level, b.member, b.threshold_percent, b.limit, b.spent, b.remaining, b.period, b.account, b.key])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[2]) - Number(b[2]));
      expect(seen).toEqual([
        ["account", undefined, 50, "0.003", "0.0015", "0.0015", "day", "org", undefined],
        ["account", undefined, 80, "0.003", "0.0024", "0.0006", "day", "org", undefined],
        ["account", undefined, 100, "0.003", "0.003", "0", "day", "org", undefined],
        ["member", "ann@example.com", 50, "0.0015", "0.000825", "0.000675", "month", "org", undefined],
        ["member", "ann@example.com", 80, "0.0015", "0.001275", "0.000225", "month", "org", undefined],
        ["member", "ann@example.com", 100, "0.0015", "0.0015", "0", "month", "org", undefined],
      ]);
      const banner = async (cookie: string) => (await call(gw, "GET", "/dashboard/api/alerts/banner", { cookie })).json.alerts as Record<string, unknown>[];
      const shown = (alerts: Record<string, unknown>[]) => alerts.map((a) => [a.level, a.member, a.threshold_percent, a.spent, a.remaining]);
      expect(shown(await banner(owner))).toEqual([
        ["account", undefined, 100, "0.003", "0"],
        ["member", "ann@example.com", 100, "0.0015", "0"],
      ]);
      expect(shown(await banner(ann))).toEqual(shown(await banner(owner)));
      // A member sees the account's budget and their own, not another member's.
      expect(shown(await banner(bob))).toEqual([["account", undefined, 100, "0.003", "0"]]);
    } finally {
      await r.close();
    }
  });
});

describe("delivery", () => {
  test("a receiver answering 500 then 200 is retried after retryBaseMs and ends delivered with attempts 2", async () => {
    const r = await receiver([500, 200]);
    try {
      await gw.addCredits("1", "flaky");
      const secret = await hook(gw, r.url, "flaky");
      const { key } = await keyFor(gw, "flaky", 300_000n);
      fake.queue(costing(1_000));
      expect((await ask(gw, key)).status).toBe(200);
      // Only this receiver's delivery: the operator's every-account webhook of the first test gets one too.
      const mine = async () => (await listDeliveries(gw.store, { account: "flaky" })).find((d) => d.url === r.url);
      await expect.poll(async () => (await mine())?.status, { timeout: 5_000 }).toBe("delivered");
      const d = await mine();
      expect(d).toMatchObject({ status: "delivered", attempts: 2, last_status: 200, url: r.url });
      expect(r.got).toHaveLength(2);
      expect(r.got[0]!.body).toBe(r.got[1]!.body); // the same event, the same bytes
      expect(verify(secret, r.got[1]!)).toBe(true);
      expect(r.got[1]!.at - r.got[0]!.at).toBeGreaterThanOrEqual(ALERTS.retryBaseMs - 20);
    } finally {
      await r.close();
    }
  });

  test("a receiver that hangs slows no request, and its attempt is cut by the timeout", async () => {
    const hung = await receiver(["hang"]);
    try {
      await gw.addCredits("1", "calm");
      await gw.addCredits("1", "hung");
      await hook(gw, hung.url, "hung");
      const calm = await keyFor(gw, "calm");
      // Every request of this key crosses a new threshold: 1 % steps of a budget of 100 requests.
      await setAlertSettings(gw.store, "hung", { percents: Array.from({ length: 10 }, (_, i) => String(i + 1)).join(",") }, Date.now(), TEST_BY);
      const slow = await keyFor(gw, "hung", 150_000n);
      const timed = async (key: string) => {
        const t = performance.now();
        expect((await ask(gw, key)).status).toBe(200);
        return performance.now() - t;
      };
      const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      fake.fallback = () => costing(10); // 1,500 nano-USD: 1 % of the budget per request
      const base: number[] = [];
      const withHook: number[] = [];
      for (let i = 0; i < 8; i++) {
        base.push(await timed(calm.key));
        withHook.push(await timed(slow.key));
      }
      await expect.poll(() => hung.got.length, { timeout: 5_000 }).toBeGreaterThan(0);
      // Each request answers at its own pace while attempts hang for up to 500 ms behind it.
      expect(median(withHook)).toBeLessThan(median(base) + 50);
      expect(Math.max(...withHook)).toBeLessThan(ALERTS.timeoutMs);
      // The hung attempts were cut at the timeout: their connections closed, unanswered, and they wait for a retry.
      await expect.poll(() => hung.closedUnanswered(), { timeout: 3_000 }).toBeGreaterThan(0);
      await expect
        .poll(async () =>
          (await listDeliveries(gw.store, { account: "hung" })).some(
            (d) => d.url === hung.url && d.status === "pending" && d.attempts >= 1 && d.last_status === null,
          ),
        )
        .toBe(true);
    } finally {
      fake.fallback = () => costing(10);
      await hung.close();
    }
  });
});

describe("restart", () => {
  test("a delivery still being retried when the gateway stops is delivered by the next one on the same database", async () => {
    const dir = tempDir();
    const pgDb = onPostgres() ? await createTestDatabase() : undefined;
    const database = pgDb?.url ?? join(dir, "restart.db");
    const r = await receiver([500, 200]);
    const config = openaiConfig(fake.url, { database, alerts: { ...ALERTS, retryBaseMs: 1_500 } });
    let first: TestGateway | undefined = await startGateway(config);
    let second: TestGateway | undefined;
    try {
      await first.addCredits("1", "again");
      const secret = await hook(first, r.url, "again");
      const { key } = await keyFor(first, "again", 300_000n);
      fake.queue(costing(1_000));
      expect((await ask(first, key)).status).toBe(200);
      await expect.poll(() => r.got.length).toBe(1);
      await expect.poll(async () => (await listDeliveries(first!.store, { account: "again" }))[0]?.last_status).toBe(500);
      await first.close();
      first = undefined;
      second = await startGateway(config);
      await expect.poll(() => r.got.length, { timeout: 6_000 }).toBe(2);
      expect(verify(secret, r.got[1]!)).toBe(true);
      await expect
        .poll(async () => (await listDeliveries(second!.store, { account: "again" }))[0])
        .toMatchObject({ status: "delivered", attempts: 2, last_status: 200 });
    } finally {
      await first?.close();
      await second?.close();
      await r.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
