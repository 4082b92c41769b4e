/**
 * Money stays exact above 2^53 nano-USD (issue 10, item 12): from the CLI's argument to the
 * database and back, through a restart, and in the gateway's 402 decisions.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MAX_NANO, nanoToUsd, usdToNanoExact } from "../src/core/money.js";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, expectError } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";

const TWO_53 = 2n ** 53n;

describe("the CLI", () => {
  let db: string;
  const run = (...args: string[]) => gateway(["--db", db, ...args], { cwd: tempDir() });
  beforeAll(() => {
    assertBuilt();
    db = join(tempDir(), "money.db");
  });

  test("credits add 10000000.123456789 twice: show --json is exact", async () => {
    const first = await run("credits", "add", "10000000.123456789", "--account", "big", "--create", "--json");
    expect(first.json).toEqual({ account: "big", added: "10000000.123456789", balance: "10000000.123456789" });
    expect((await run("credits", "add", "10000000.123456789", "--account", "big", "--json")).json.balance).toBe("20000000.246913578");
    expect((await run("credits", "show", "--account", "big", "--json")).json).toEqual({ account: "big", balance: "20000000.246913578" });
    // 20000000.246913578 USD is above 2^53 nano-USD: as a JS number it would have come back rounded.
    expect(usdToNanoExact("20000000.246913578") > TWO_53).toBe(true);
  });

  test("up to the 64-bit maximum; past it a clear refusal and the balance unchanged", async () => {
    const max = nanoToUsd(MAX_NANO);
    expect(max).toBe("9223372036.854775807");
    expect((await run("credits", "add", max, "--account", "max", "--create", "--json")).json.balance).toBe(max);
    const over = await run("credits", "add", "0.000000001", "--account", "max");
    expect(over.exitCode).toBe(1);
    expect(over.stderr.trim().split("\n")).toEqual([`error: the balance of 'max' would exceed the maximum of ${max} USD`]);
    expect((await run("credits", "show", "--account", "max", "--json")).json.balance).toBe(max);
    const huge = await run("credits", "add", "9223372036.854775808", "--account", "other", "--create");
    expect(huge.exitCode).toBe(2);
    expect(huge.stderr).toContain("amount too large");
  });
});

test("store round trip: an exact balance survives close and reopen, and SQLite holds the same integer", async () => {
  const file = join(tempDir(), "round.db");
  const store = openSqliteStore(file);
  const amount = TWO_53 + 1n; // the first integer a double cannot hold
  expect(await store.addCredits("a", amount, Date.now())).toBe(amount);
  expect(await store.addCredits("a", amount, Date.now())).toBe(2n * amount);
  await store.addCredits("m", MAX_NANO, Date.now());
  await expect(store.addCredits("m", 1n, Date.now())).rejects.toThrow(/would exceed the maximum/);
  await store.close();
  const again = openSqliteStore(file);
  expect(await again.balance("a")).toBe(2n * amount);
  expect(await again.balance("m")).toBe(MAX_NANO);
  await again.close();
  const raw = new Database(file, { readonly: true });
  try {
    const sql = raw.prepare("SELECT balance FROM accounts WHERE id = ?").pluck().safeIntegers();
    expect(sql.get("a")).toBe(2n * amount);
    // The refused credit left no grant behind: the grants still sum to the balance.
    expect(raw.prepare("SELECT SUM(amount) FROM credit_grants WHERE account = 'm'").pluck().safeIntegers().get()).toBe(MAX_NANO);
  } finally {
    raw.close();
  }
});

describe("402 decisions above 2^53", () => {
  let fake: FakeUpstream;
  let gw: TestGateway;
  const MODEL = "openai/gpt-4o-mini";
  beforeAll(async () => {
    fake = await startFakeUpstream(() => completion("ok", { prompt_tokens: 12, completion_tokens: 5 }));
    gw = await startGateway({
      providers: { openai: { baseUrl: `${fake.url}/v1`, apiKey: "sk-platform-key-0001" } },
      models: [{ id: MODEL, pricing: { prompt: "0.15", completion: "0.6" }, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
    });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });
  // Worst case of this body: 34 prompt tokens × 0.15 + 10 × 0.6 per 1M = 11_100 nano-USD.
  const ask = (key: string) =>
    gw.fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(key) },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 10 }),
    });
  /** An account whose balance is `balance`, with `held` of it already held by another request in flight. */
  const account = async (name: string, balance: bigint, held: number) => {
    const key = await gw.createKey({ account: name });
    await gw.store.addCredits(name, balance, Date.now());
    if (held > 0) expect(await gw.store.reserve(`held-${name}`, name, held)).toBe(true);
    return key;
  };

  test("at the edge: what is left equal to the worst case is admitted, one nano-USD less is 402", async () => {
    const holds = Number.MAX_SAFE_INTEGER - 11_100; // the most one account may hold in flight, less this request
    expect((await ask(await account("edge", BigInt(Number.MAX_SAFE_INTEGER), holds))).status).toBe(200);
    expect(await gw.store.balance("edge")).toBe(BigInt(Number.MAX_SAFE_INTEGER) - 4_800n);
    await expectError(await ask(await account("short", BigInt(Number.MAX_SAFE_INTEGER) - 1n, holds)), 402, "insufficient_credits", null);
    expect(await gw.store.balance("short")).toBe(BigInt(Number.MAX_SAFE_INTEGER) - 1n);
  });

  test("above 2^53 the debit is exact; holds in flight are capped at 2^53 - 1 nano-USD per account", async () => {
    // 2^53 + 11_097 is not a double: a number balance would have come back as 2^53 + 11_096.
    const big = await account("big", TWO_53 + 11_097n, 0);
    expect((await ask(big)).status).toBe(200);
    expect(await gw.store.balance("big")).toBe(TWO_53 + 11_097n - 4_800n);
    expect(await gw.store.reserve("probe-big", "big", Number.MAX_SAFE_INTEGER - 11_099)).toBe(true);
    // The balance covers it many times over, but the account's holds would pass 2^53 - 1 (core/money.ts).
    const res = await ask(big);
    await expectError(res, 402, "insufficient_credits", null);
  });
});
