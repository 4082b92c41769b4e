/** Money: exact debits, reservations under concurrency, disconnect billing, BYOK (docs/billing.md). */
import { execFileSync } from "node:child_process";
import { onPostgres } from "./helpers/services.js";
import { rows } from "./helpers/rows.js";
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { encrypt, loadSecret } from "../src/access/byok.js";
import { FAST_RETRY, useGateway } from "./helpers/gateway.js";
import { bearer, expectError } from "./helpers/http.js";
import { completion, stream } from "./helpers/openai-wire.js";

const MODEL = "openai/gpt-4o-mini";
const h = useGateway(
  (fakeUrl) => ({
    providers: { openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-platform-key-0001" } },
    models: [
      { id: MODEL, pricing: { prompt: "0.15", completion: "0.6" }, max_output: 16384, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] },
      { id: "openai/tiny-price", pricing: { prompt: "0.0000015", completion: "0" }, endpoints: [{ provider: "openai", model: "tiny" }] },
    ],
    retry: FAST_RETRY,
    health: { failureThreshold: 1000 },
  }),
  { fallback: () => completion("ok", { prompt_tokens: 12, completion_tokens: 5 }) },
);

interface LedgerRow {
  account: string;
  cost: number;
  list_cost: number;
  byok: number;
  usage_source: string;
  status: string;
  prompt_tokens: number;
  completion_tokens: number;
}
const ledger = (account: string) => rows<LedgerRow>(h.gw.db, "SELECT * FROM ledger WHERE account = ? ORDER BY id", account);
const balance = async (account: string) => Number((await h.gw.store.balance(account)) ?? 0n);
const ask = (key: string, extra: Record<string, unknown> = {}) =>
  h.post({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 10, ...extra }, bearer(key));

describe("exact debits", () => {
  test("the balance drops by exactly prompt × price + completion × price, rounded up once", async () => {
    const key = await h.gw.createKey({ account: "exact" });
    await h.gw.addCredits("1", "exact");
    expect((await ask(key)).status).toBe(200);
    // 12 × 150_000_000 + 5 × 600_000_000 nano-USD per 1M tokens = 4_800 nano-USD.
    expect(await balance("exact")).toBe(1_000_000_000 - 4_800);
    expect(await ledger("exact")).toEqual([
      expect.objectContaining({ cost: 4_800, list_cost: 4_800, prompt_tokens: 12, completion_tokens: 5, usage_source: "provider", status: "ok", byok: 0 }),
    ]);
    // 12 × 1_500 / 1e6 = 0.018 nano -> rounded up to 1.
    expect((await ask(key, { model: "openai/tiny-price" })).status).toBe(200);
    expect(await balance("exact")).toBe(1_000_000_000 - 4_801);
  });

  test("402 at zero, with nothing sent upstream and nothing charged", async () => {
    const key = await h.gw.createKey({ account: "broke" });
    const before = h.fake.requests.length;
    await expectError(await ask(key), 402, "insufficient_credits", null);
    expect(h.fake.requests.length).toBe(before);
    expect(await balance("broke")).toBe(0);
  });

  test("a worst case equal to the balance is admitted", async () => {
    const key = await h.gw.createKey({ account: "edge" });
    // Worst case: prompt bound (16 + 16 + 2 bytes "hi" = 34 tokens) × 0.15 + 10 × 0.6 per 1M = 11_100 nano-USD.
    await h.gw.addCredits("0.0000111", "edge");
    expect((await ask(key)).status).toBe(200);
    expect(await balance("edge")).toBe(11_100 - 4_800);
    await h.gw.store.addCredits("edge2", 11_099, Date.now());
    const poorer = await h.gw.createKey({ account: "edge2" });
    expect((await ask(poorer)).status).toBe(402);
  });

  test("no charge for a request that failed before any output", async () => {
    const key = await h.gw.createKey({ account: "failed" });
    await h.gw.addCredits("1", "failed");
    h.fake.queue({ status: 400, json: { error: { message: "bad", type: "invalid_request_error" } } });
    expect((await ask(key)).status).toBe(400);
    expect(await balance("failed")).toBe(1_000_000_000);
    expect(await ledger("failed")).toEqual([expect.objectContaining({ cost: 0, status: "error" })]);
  });
});

describe("concurrency", () => {
  test("50 concurrent requests against a balance that covers 5: exactly 5 admitted, never below zero, ledger sum = balance change", async () => {
    const key = await h.gw.createKey({ account: "race", rpm: 1000 });
    await h.gw.addCredits("0.0000555", "race"); // 5 × the 11_100 worst case
    // Hold every upstream answer until all 50 requests have been decided.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.fake.fallback = () => ({ ...(completion("ok", { prompt_tokens: 12, completion_tokens: 5 }) as { json: unknown }), waitFor: gate });
    try {
      const statuses: number[] = [];
      const pending = Array.from({ length: 50 }, () => ask(key).then((r) => (statuses.push(r.status), r.status)));
      await expect.poll(() => statuses.length, { timeout: 10_000 }).toBe(45);
      expect(statuses.every((s) => s === 402)).toBe(true);
      // All of it is held by the five in flight: not one more nano-USD can be reserved.
      expect(await h.gw.store.reserve("probe", "race", 1)).toBe(false);
      release();
      const all = await Promise.all(pending);
      expect(all.filter((s) => s === 200)).toHaveLength(5);
      const final = await balance("race");
      const charged = (await ledger("race")).reduce((sum, r) => sum + r.cost, 0);
      expect(final).toBe(55_500 - 5 * 4_800);
      expect(charged).toBe(55_500 - final);
    } finally {
      release();
      h.fake.fallback = () => completion("ok", { prompt_tokens: 12, completion_tokens: 5 });
    }
  });
});

describe("streams and disconnects", () => {
  test("a client that disconnects mid-stream is charged for what it received (estimated)", async () => {
    const key = await h.gw.createKey({ account: "leaver" });
    await h.gw.addCredits("1", "leaver");
    h.fake.queue(
      stream(
        Array.from({ length: 100 }, (_, i) => `word${i} `),
        { prompt_tokens: 12, completion_tokens: 300 },
        { delayMs: 15 },
      ),
    );
    const res = await ask(key, { stream: true, max_tokens: 500 });
    const reader = res.body!.getReader();
    let received = "";
    while (!received.includes("word5 ")) received += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    await expect.poll(async () => (await ledger("leaver")).length, { timeout: 5000 }).toBe(1);
    const row = (await ledger("leaver"))[0]!;
    expect(row).toMatchObject({ status: "cancelled", usage_source: "estimated" });
    expect(row.completion_tokens).toBeGreaterThan(0);
    expect(row.completion_tokens).toBeLessThan(300);
    expect(row.cost).toBe(Math.ceil((row.prompt_tokens * 150_000_000 + row.completion_tokens * 600_000_000) / 1e6));
    expect(await balance("leaver")).toBe(1_000_000_000 - row.cost);
  });

  test("a completed stream is billed from the provider's usage", async () => {
    const key = await h.gw.createKey({ account: "streamer" });
    await h.gw.addCredits("1", "streamer");
    h.fake.queue(stream(["a", "b"], { prompt_tokens: 12, completion_tokens: 5 }));
    await (await ask(key, { stream: true })).text();
    await expect.poll(async () => (await ledger("streamer")).length).toBe(1);
    expect((await ledger("streamer"))[0]).toMatchObject({ cost: 4_800, usage_source: "provider", status: "ok" });
    expect(await balance("streamer")).toBe(1_000_000_000 - 4_800);
  });
});

describe("BYOK", () => {
  test("the account's own key reaches the provider, the balance is untouched, no 402; the ledger keeps list cost", async () => {
    const byokKey = "sk-account-own-openai-key-7777";
    await h.gw.store.ensureAccount("byok", Date.now());
    const secret = loadSecret(h.gw.db, { GATEWAY_SECRET: "test-secret" });
    await h.gw.store.setByok({ account: "byok", provider: "openai", secret: encrypt(secret, "byok", "openai", byokKey), last4: "7777", updatedAt: Date.now() });
    const key = await h.gw.createKey({ account: "byok" });
    await expect.poll(async () => (await ask(key)).status, { timeout: 2000 }).toBe(200);
    expect(h.fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${byokKey}`);
    expect(await balance("byok")).toBe(0);
    expect((await ledger("byok")).at(-1)).toMatchObject({ byok: 1, cost: 0, list_cost: 4_800 });
  });

  test("the database (file and WAL, or a full PostgreSQL dump) never holds a gateway key or a BYOK key in clear text", async () => {
    const key = await h.gw.createKey({ account: "secrets" });
    await h.gw.addCredits("1", "secrets");
    expect((await ask(key)).status).toBe(200);
    const dumps = onPostgres()
      ? [execFileSync("pg_dump", ["--data-only", h.gw.db], { maxBuffer: 64 << 20 })]
      : [h.gw.db, `${h.gw.db}-wal`].map((f) => readFileSync(f));
    expect(dumps.every((d) => d.length > 0)).toBe(true);
    for (const bytes of dumps) {
      expect(bytes.includes(Buffer.from(key))).toBe(false);
      expect(bytes.includes(Buffer.from(key.slice(3, 40)))).toBe(false);
      expect(bytes.includes(Buffer.from("sk-account-own-openai-key"))).toBe(false);
      expect(bytes.includes(Buffer.from("sk-platform-key"))).toBe(false);
    }
  });
});
