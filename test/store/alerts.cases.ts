/**
 * The Store contract for alerts (src/store/alerts.ts), run on SQLite and PostgreSQL like
 * store.cases.ts: webhooks, thresholds, and the delivery outbox's once-only rule and claims.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { NewDelivery, Store } from "../../src/store/index.js";
import type { StoreHarness } from "./store.cases.js";

const T0 = Date.UTC(2026, 10, 20, 12);

const delivery = (id: string, over: Partial<NewDelivery> = {}): NewDelivery => ({
  id,
  webhookId: "wh1",
  eventKey: `budget:key:k1:month:0:${id}`,
  url: "http://127.0.0.1:9/hook",
  account: "acme",
  type: "budget.threshold",
  body: `{"id":"${id}"}`,
  createdAt: T0,
  ...over,
});

export function alertStoreCases(make: () => Promise<StoreHarness>): void {
  let h: StoreHarness;
  let store: Store;
  const others: Store[] = [];

  beforeEach(async () => {
    h = await make();
    store = await h.open();
    await store.ensureAccount("acme", T0);
    await store.addWebhook({ id: "wh1", account: "acme", url: "http://127.0.0.1:9/hook", secret: Buffer.from([1, 2, 3]), createdAt: T0 });
  });
  afterEach(async () => {
    for (const s of others.splice(0)) await s.close();
    await store.close().catch(() => undefined);
    await h.drop();
  });

  describe("alerts", () => {
    test("webhooks: an account's or every account's, listed oldest first with the sealed secret as stored; removal", async () => {
      await store.addWebhook({ id: "wh2", account: null, url: "https://ops.example/h", secret: Buffer.from("x"), createdAt: T0 + 1 });
      expect(await store.listWebhooks()).toEqual([
        { id: "wh1", account: "acme", url: "http://127.0.0.1:9/hook", secret: Buffer.from([1, 2, 3]), createdAt: T0 },
        { id: "wh2", account: null, url: "https://ops.example/h", secret: Buffer.from("x"), createdAt: T0 + 1 },
      ]);
      expect(await store.removeWebhook("wh2", T0)).toBe(true);
      expect(await store.removeWebhook("wh2", T0)).toBe(false);
      expect((await store.listWebhooks()).map((w) => w.id)).toEqual(["wh1"]);
    });

    test("thresholds: none until set, then replaced whole; the low-balance amount exact beyond 2^53 nano-USD", async () => {
      expect(await store.alertSettings("acme")).toBeUndefined();
      await store.setAlertSettings({ account: "acme", percents: [50, 80, 100], lowBalance: null, updatedAt: T0 });
      expect(await store.alertSettings("acme")).toEqual({ account: "acme", percents: [50, 80, 100], lowBalance: null, updatedAt: T0 });
      const big = 2n ** 60n + 1n;
      await store.setAlertSettings({ account: "acme", percents: [90], lowBalance: big, updatedAt: T0 + 1 });
      expect(await store.alertSettings("acme")).toEqual({ account: "acme", percents: [90], lowBalance: big, updatedAt: T0 + 1 });
    });

    test("one delivery per webhook and event key, from any connection", async () => {
      const second = await h.open();
      others.push(second);
      expect(await store.queueDeliveries([delivery("d1"), delivery("d2")])).toBe(2);
      expect(await second.queueDeliveries([delivery("d3", { eventKey: delivery("d1").eventKey }), delivery("d4")])).toBe(1);
      expect(await store.queueDeliveries([delivery("d5", { webhookId: "wh9", eventKey: delivery("d1").eventKey })])).toBe(1); // another webhook
      expect(await store.queueDeliveries([])).toBe(0);
      const log = await store.listDeliveries({ account: "acme", limit: 10 });
      expect(log.map((d) => d.id).sort()).toEqual(["d1", "d2", "d4", "d5"]);
      expect(log.find((d) => d.id === "d1")).toEqual({
        id: "d1",
        webhookId: "wh1",
        url: "http://127.0.0.1:9/hook",
        account: "acme",
        type: "budget.threshold",
        body: '{"id":"d1"}',
        status: "pending",
        attempts: 0,
        lastStatus: null,
        nextAttemptAt: T0,
        createdAt: T0,
        deliveredAt: null,
      });
      expect(await store.listDeliveries({ account: "other", limit: 10 })).toEqual([]);
      expect(await store.listDeliveries({ limit: 2 })).toHaveLength(2);
    });

    test("claims: due rows only, an attempt counted, leased until given; two connections never take the same row", async () => {
      const second = await h.open();
      others.push(second);
      await store.queueDeliveries(Array.from({ length: 10 }, (_, i) => delivery(`d${i}`, { createdAt: T0 + i })));
      expect(await store.claimDeliveries(T0 - 1, T0 + 100, 50)).toEqual([]);
      const [a, b] = await Promise.all([store.claimDeliveries(T0 + 20, T0 + 1_000, 6), second.claimDeliveries(T0 + 20, T0 + 1_000, 6)]);
      const ids = [...a, ...b].map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `d${i}`).sort());
      expect(a[0]).toMatchObject({ attempts: 1, nextAttemptAt: T0 + 1_000, secret: Buffer.from([1, 2, 3]) });
      expect(await store.claimDeliveries(T0 + 999, T0 + 2_000, 50)).toEqual([]); // leased
      expect((await store.claimDeliveries(T0 + 1_000, T0 + 2_000, 50)).map((d) => d.attempts)).toEqual(Array(10).fill(2)); // the lease lapsed
    });

    test("finishing: delivered and failed rows are never claimed again; a removed webhook's pending rows end failed", async () => {
      await store.queueDeliveries([delivery("d1"), delivery("d2"), delivery("d3")]);
      await store.claimDeliveries(T0, T0 + 10, 50);
      await store.finishDelivery("d1", { status: "delivered", lastStatus: 204, nextAttemptAt: T0 + 5, deliveredAt: T0 + 5 });
      await store.finishDelivery("d2", { status: "pending", lastStatus: 500, nextAttemptAt: T0 + 30, deliveredAt: null });
      expect((await store.claimDeliveries(T0 + 20, T0 + 40, 50)).map((d) => d.id)).toEqual(["d3"]); // its lease lapsed; d2 not yet due
      expect((await store.claimDeliveries(T0 + 30, T0 + 40, 50)).map((d) => [d.id, d.lastStatus])).toEqual([["d2", 500]]);
      await store.finishDelivery("d2", { status: "pending", lastStatus: null, nextAttemptAt: T0 + 50, deliveredAt: null });
      expect(await store.removeWebhook("wh1", T0 + 45)).toBe(true);
      const log = await store.listDeliveries({ limit: 10 });
      expect(Object.fromEntries(log.map((d) => [d.id, [d.status, d.attempts, d.deliveredAt]]))).toEqual({
        d1: ["delivered", 1, T0 + 5],
        d2: ["failed", 2, null],
        d3: ["failed", 2, null],
      });
      expect(await store.claimDeliveries(T0 + 10_000, T0 + 20_000, 50)).toEqual([]);
    });

    test("a claimed row whose webhook was removed comes without a secret", async () => {
      await store.queueDeliveries([delivery("d1", { webhookId: "gone" })]);
      expect(await store.claimDeliveries(T0, T0 + 10, 5)).toEqual([expect.objectContaining({ id: "d1", secret: null })]);
    });
  });
}
