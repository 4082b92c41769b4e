/**
 * count_tokens is no free CPU sink (docs/messages.md, "count_tokens"; docs/gemini.md,
 * "countTokens"): an account whose requests to the model would get the 402 gets the same 402 on
 * /v1/messages/count_tokens and Gemini's :countTokens, before the provider is asked or the gateway
 * counts anything (native and translated routes); a funded account still gets its count, never
 * billed; and the gateway's own count tokenizes at most COUNT_EXACT_CHARS characters, the rest
 * counted at the rate of the part it tokenized.
 */
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { COUNT_EXACT_CHARS } from "../src/billing/count-tokens.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";

/** One fake for the three wire formats, told apart by path. */
const reply = (req: Recorded): Reply => {
  if (req.path.endsWith("/count_tokens")) return { json: { input_tokens: 77 } };
  if (req.path.endsWith(":countTokens")) return { json: { totalTokens: 88 } };
  return completion("ok");
};

let fake: FakeUpstream;
let gw: TestGateway;
let funded: string;
let broke: string;

beforeAll(async () => {
  fake = await startFakeUpstream(reply);
  gw = await startGateway({
    providers: {
      anthropic: { baseUrl: fake.url, apiKey: "sk-ant-count-guard-upstream-1111" },
      openai: { baseUrl: `${fake.url}/v1`, apiKey: "sk-openai-count-guard-upstream-2222" },
      google: { baseUrl: fake.url, apiKey: "g-count-guard-upstream-3333" },
    },
    models: [
      {
        id: "anthropic/claude-count",
        pricing: { prompt: "3", completion: "15" },
        max_output: 8192,
        endpoints: [{ provider: "anthropic", model: "claude-up" }],
      },
      { id: "openai/gpt-count", pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "openai", model: "gpt-up" }] },
      { id: "google/gemini-count", pricing: { prompt: "1", completion: "2" }, max_output: 8192, endpoints: [{ provider: "google", model: "gemini-up" }] },
    ],
  });
  funded = await gw.createKey({ account: "funded" });
  await gw.addCredits("10", "funded");
  broke = await gw.createKey({ account: "broke" });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const user = (text: string) => ({ role: "user", content: text });

function messages(key: string, body: unknown, path = "/v1/messages/count_tokens") {
  return fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const gemini = (key: string, body: unknown) =>
  fetch(`${gw.url}/v1beta/models/gemini-count:countTokens`, {
    method: "POST",
    headers: { "x-goog-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("an account the model's requests would refuse with 402", () => {
  test.each(["openai/gpt-count", "anthropic/claude-count"])("%s: count_tokens gets the same 402 as /v1/messages, and nobody counts", async (model) => {
    const sent = await messages(broke, { model, max_tokens: 16, messages: [user("hi")] }, "/v1/messages");
    const counted = await messages(broke, { model, messages: [user("hi")] });
    expect([sent.status, counted.status]).toEqual([402, 402]);
    const [a, b] = (await Promise.all([sent.json(), counted.json()])) as Array<{ type: string; error: { type: string; code: string | null } }>;
    expect(b).toMatchObject({ type: "error", error: { type: a!.error.type, code: a!.error.code } });
    expect(b!.error.type).toBe("insufficient_credits");
    expect(fake.requests).toEqual([]);
  });

  test("Gemini's countTokens: the 402 in Google's envelope, Google not asked", async () => {
    const res = await gemini(broke, { contents: [{ role: "user", parts: [{ text: "hi" }] }] });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: { code: number; status: string } }).error).toMatchObject({ code: 402 });
    expect(fake.requests).toEqual([]);
  });
});

describe("a funded account", () => {
  test("still gets the provider's count natively and the gateway's count translated; no hold left, no ledger row", async () => {
    const native = await messages(funded, { model: "anthropic/claude-count", messages: [user("hi")] });
    expect(await native.json()).toEqual({ input_tokens: 77 });
    const google = await gemini(funded, { contents: [{ role: "user", parts: [{ text: "hi" }] }] });
    expect(await google.json()).toEqual({ totalTokens: 88 });
    const translated = await messages(funded, { model: "openai/gpt-count", messages: [user("hi")] });
    expect(((await translated.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(await gw.store.balance("funded")).toBe(10_000_000_000n);
    // Nothing is held any more: the whole balance can be reserved.
    expect(await gw.store.reserve("res_probe", "funded", 10_000_000_000)).toBe(true);
    await gw.store.release("res_probe");
    expect(await rows(gw.db, "SELECT * FROM ledger WHERE account = ?", "funded")).toEqual([]);
  });
});

describe("the gateway's own count is bounded", () => {
  test("at most COUNT_EXACT_CHARS characters tokenized; the rest counted at the rate they showed", async () => {
    // 16 messages of 4,096 characters fill the bound exactly; the 2,000,000 characters after it are not tokenized.
    const prose = (i: number) => `message ${i}: the gateway counts what it can afford to and estimates the rest. `.repeat(60).slice(0, 4096);
    const head = Array.from({ length: COUNT_EXACT_CHARS / 4096 }, (_, i) => prose(i));
    const tail = "a".repeat(2_000_000); // o200k reads a long run of one letter in few tokens: an exact count would be far lower
    const res = await messages(funded, { model: "openai/gpt-count", messages: [...head.map(user), user(tail)] });
    expect(res.status).toBe(200);
    const exact = head.reduce((n, text) => n + o200k(text), 0);
    // The chat framing (3, and 3 per message) as the gateway's prompt count has it (billing/tokens.ts).
    const framing = 3 + 3 * (head.length + 1);
    expect(((await res.json()) as { input_tokens: number }).input_tokens).toBe(framing + exact + Math.ceil((tail.length * exact) / COUNT_EXACT_CHARS));
  });
});
