/**
 * The Store contract for model prices (src/store/model-prices.ts), run on SQLite and PostgreSQL
 * like store.cases.ts: rows by id and origin, replaced in place, removed, seen by another
 * connection with a change notice, and committed with their audit record or not at all.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { ModelPrice, Store } from "../../src/store/index.js";
import type { StoreHarness } from "./store.cases.js";

const T0 = Date.UTC(2026, 10, 20, 12);

const price = (id: string, over: Partial<ModelPrice> = {}): ModelPrice => ({
  id,
  origin: "operator",
  prompt: 5_000_000_000,
  completion: 25_000_000_000,
  cacheRead: null,
  cacheWrite: null,
  contextLength: null,
  maxOutput: null,
  source: "cli:ops",
  updatedAt: T0,
  ...over,
});

export function modelPriceStoreCases(make: () => Promise<StoreHarness>): void {
  let h: StoreHarness;
  let store: Store;
  beforeEach(async () => void (store = await (h = await make()).open()));
  afterEach(async () => {
    await store.close().catch(() => undefined);
    await h.drop();
  });

  describe("model prices", () => {
    test("rows are kept per id and origin, replaced in place, read back exactly and removed", async () => {
      expect(await store.modelPrices()).toEqual([]);
      const file = price("openai/gpt-5.5", { origin: "file", cacheRead: 500_000_000, contextLength: 1_050_000, maxOutput: 128_000, source: "prices.json" });
      // The largest price a number holds exactly survives the round trip (bigint columns on PostgreSQL).
      const big = price("anthropic/claude-opus-5-5", { prompt: Number.MAX_SAFE_INTEGER, cacheWrite: 6_250_000_000 });
      await store.setModelPrices([file, big, price("openai/gpt-5.5")]);
      expect(await store.modelPrices()).toEqual([big, file, price("openai/gpt-5.5")]);
      await store.setModelPrices([price("openai/gpt-5.5", { prompt: 1, completion: 2, updatedAt: T0 + 1 })]);
      expect((await store.modelPrices()).find((p) => p.id === "openai/gpt-5.5" && p.origin === "operator")).toEqual(
        price("openai/gpt-5.5", { prompt: 1, completion: 2, updatedAt: T0 + 1 }),
      );
      expect(await store.removeModelPrice("openai/gpt-5.5", "operator")).toBe(true);
      expect(await store.removeModelPrice("openai/gpt-5.5", "operator")).toBe(false);
      expect((await store.modelPrices()).map((p) => `${p.id} ${p.origin}`)).toEqual(["anthropic/claude-opus-5-5 operator", "openai/gpt-5.5 file"]);
    });

    test("a negative price is refused and the batch it was in writes nothing", async () => {
      await expect(store.setModelPrices([price("a/ok"), price("a/bad", { completion: -1 })])).rejects.toThrow();
      expect(await store.modelPrices()).toEqual([]);
    });

    test("another connection is told of a change and reads it", async () => {
      const other = await h.open();
      try {
        let heard = 0;
        const stop = other.watch(() => heard++);
        await store.setModelPrices([price("openai/gpt-5.5")]);
        await expect.poll(() => heard, { timeout: 5_000 }).toBeGreaterThan(0);
        stop();
        expect(await other.modelPrices()).toEqual([price("openai/gpt-5.5")]);
      } finally {
        await other.close();
      }
    });

    test("an audited price commits with its record; removing a price that is not there records nothing", async () => {
      const note = (action: string) => ({
        actor: "cli:ops",
        ip: null,
        at: T0,
        action,
        account: null,
        target: "openai/gpt-5.5",
        before: null,
        after: { prompt: "5" },
      });
      await store.audited(note("model.price")).setModelPrices([price("openai/gpt-5.5")]);
      expect(await store.audited(note("model.price.remove")).removeModelPrice("openai/gpt-5.5", "file")).toBe(false);
      expect((await store.auditRecords()).map((r) => r.action)).toEqual(["model.price"]);
      expect(await store.modelPrices()).toEqual([price("openai/gpt-5.5")]);
    });
  });
}
