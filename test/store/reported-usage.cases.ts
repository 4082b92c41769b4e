/**
 * The Store contract for the ledger's bounded counts and per-call tool fees (docs/limits.md,
 * "Reported usage is the provider's bill"; docs/billing.md, "Per-call tool fees"), run on SQLite
 * and PostgreSQL like store.cases.ts: a row keeps the counts reported beside those billed and its
 * tool calls and their fee, whichever way it settles (without a hold, against a hold, failed
 * over: on PostgreSQL the group commit's fast path and gw_settle_leased alike); usage sums them,
 * and retention's rollups keep the sums.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Attempt, LedgerEntry, Store } from "../../src/store/index.js";
import { ledgerEntry } from "../helpers/ledger-entry.js";
import { rows } from "../helpers/rows.js";
import type { StoreHarness } from "./store.cases.js";

const T0 = Date.UTC(2026, 10, 20, 12);
const DAY = 86_400_000;

let n = 0;
const entry = (over: Partial<LedgerEntry> = {}): LedgerEntry =>
  ledgerEntry({ requestId: `req-reported-${++n}`, createdAt: T0, account: "acme", keyId: "k1", promptTokens: 10, completionTokens: 5, cost: 100, ...over });

const attempt = (e: LedgerEntry, outcome: string): Attempt => ({
  requestId: e.requestId,
  createdAt: e.createdAt,
  provider: "p",
  model: "m",
  outcome,
  httpStatus: outcome === "success" ? 200 : null,
  latencyMs: 7,
});

interface Columns {
  request_id: string;
  prompt_tokens: number;
  reported_prompt_tokens: number | null;
  reported_completion_tokens: number | null;
  tool_calls: unknown;
  reported_tool_calls: unknown;
  tool_cost: number;
}

/** JSON columns as values (helpers/rows.ts reads them as text on both stores). */
const value = (v: unknown) => (typeof v === "string" ? (JSON.parse(v) as unknown) : v);

export function reportedUsageStoreCases(make: () => Promise<StoreHarness>): void {
  let h: StoreHarness;
  let store: Store;

  beforeEach(async () => {
    h = await make();
    store = await h.open();
    await store.addCredits("acme", 1_000_000n, T0);
    await store.createKey({
      id: "k1",
      name: "k1",
      account: "acme",
      hash: "hash-k1",
      last4: "k1k1",
      createdAt: T0,
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
      rpm: null,
    });
  });
  afterEach(async () => {
    await store.close().catch(() => undefined);
    await h.drop();
  });

  const columns = async (e: LedgerEntry) => {
    const [row] = await rows<Columns>(
      h.db,
      "SELECT request_id, prompt_tokens, reported_prompt_tokens, reported_completion_tokens, tool_calls, reported_tool_calls, tool_cost FROM ledger WHERE request_id = ?",
      e.requestId,
    );
    return { ...row!, tool_calls: value(row!.tool_calls), reported_tool_calls: value(row!.reported_tool_calls) };
  };

  describe("bounded counts and per-call fees on the ledger", () => {
    test("a row keeps what was reported beside what was billed, and its tool calls and fee, held or not, failed over or not", async () => {
      const bounded = entry({
        promptTokens: 8_000_000,
        reportedPromptTokens: 1e15,
        reportedCompletionTokens: 5,
        toolCalls: { web_search: 10_000 },
        reportedToolCalls: { web_search: 1e9 },
        toolCost: 100_000,
        cost: 200_000,
        listCost: 200_000,
      });
      const held = entry({ toolCalls: { web_search: 2, web_fetch: 1 }, toolCost: 20, cost: 120, listCost: 120 });
      const failedOver = entry({ reportedPromptTokens: 31_000, reportedCompletionTokens: 5, promptTokens: 4_100 });
      const plain = entry();
      await store.settle(null, bounded, [attempt(bounded, "success")]);
      expect(await store.reserve("hold-held", "acme", 500)).toBe(true);
      await store.settle("hold-held", held, [attempt(held, "success")]);
      expect(await store.reserve("hold-failed", "acme", 500)).toBe(true);
      await store.settle("hold-failed", failedOver, [attempt(failedOver, "timeout"), attempt(failedOver, "success")]);
      await store.settle(null, plain, [attempt(plain, "success")]);

      expect(await columns(bounded)).toMatchObject({
        prompt_tokens: 8_000_000,
        reported_prompt_tokens: 1e15,
        reported_completion_tokens: 5,
        tool_calls: { web_search: 10_000 },
        reported_tool_calls: { web_search: 1e9 },
        tool_cost: 100_000,
      });
      expect(await columns(held)).toMatchObject({
        reported_prompt_tokens: null,
        tool_calls: { web_search: 2, web_fetch: 1 },
        reported_tool_calls: null,
        tool_cost: 20,
      });
      expect(await columns(failedOver)).toMatchObject({
        prompt_tokens: 4_100,
        reported_prompt_tokens: 31_000,
        reported_completion_tokens: 5,
        tool_calls: null,
        tool_cost: 0,
      });
      expect(await columns(plain)).toMatchObject({
        reported_prompt_tokens: null,
        reported_completion_tokens: null,
        tool_calls: null,
        reported_tool_calls: null,
        tool_cost: 0,
      });
      expect((await store.balance("acme"))!).toBe(1_000_000n - 200_000n - 120n - 100n - 100n);
    });

    test("a catalog model's tool-call prices are saved with it and read back (endpoint prices too)", async () => {
      const model = {
        id: "a/m",
        ownedBy: "a",
        promptPrice: 3000,
        completionPrice: 15_000,
        toolCallPrices: { web_search: 10_000_000_000, web_fetch: 0 },
        contextLength: 200_000,
        maxOutput: 64_000,
        endpoints: [{ provider: "p", model: "m", pricing: { prompt: 3000, completion: 15_000, toolCalls: { web_search: 8_000_000_000 } } }],
        source: "config" as const,
        created: 1_700_000_000,
      };
      await store.replaceCatalog([model, { ...model, id: "b/m", toolCallPrices: undefined }]);
      const [a, b] = await store.catalog();
      expect(a).toEqual({ ...model, order: undefined });
      expect(b!.toolCallPrices).toBeUndefined();
    });

    test("usage sums the fees and the rows billed at a bound; prune keeps both in the rollups", async () => {
      const old = [
        entry({ createdAt: T0 - 3 * DAY, toolCalls: { web_search: 3 }, toolCost: 30, cost: 130, listCost: 130 }),
        entry({ createdAt: T0 - 3 * DAY + 1, reportedPromptTokens: 1e15, reportedCompletionTokens: 5 }),
        entry({
          createdAt: T0 - 3 * DAY + 2,
          reportedToolCalls: { web_search: 1e9 },
          toolCalls: { web_search: 10_000 },
          toolCost: 1_000,
          cost: 1_100,
          listCost: 1_100,
        }),
      ];
      const recent = entry({ toolCalls: { file_search: 1 }, toolCost: 3, cost: 103, listCost: 103 });
      for (const e of [...old, recent]) await store.settle(null, e, [attempt(e, "success")]);
      const before = await store.usage({ account: "acme" });
      expect(before).toMatchObject([{ requests: 4, bounded: 2, toolCost: 1_033n }]);
      expect(await store.prune(T0 - DAY)).toMatchObject({ rows: 3 });
      expect(await store.usage({ account: "acme" })).toEqual(before);
      expect(await store.usage({ account: "acme", since: T0 - DAY })).toMatchObject([{ requests: 1, bounded: 0, toolCost: 3n }]);
    });
  });
}
