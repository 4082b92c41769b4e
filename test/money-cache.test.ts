/**
 * Cache and reasoning tokens at their own prices (docs/billing.md), one fixture per provider in
 * its own wire format, each with the exact nano-USD it must cost. Prices are the providers'
 * published ones, set in the config (USD per 1M tokens); a $X price is X × 1,000 nano-USD per token.
 * Wire formats: OpenAI chat object `usage.prompt_tokens_details.cached_tokens` /
 * `completion_tokens_details.reasoning_tokens`; Anthropic Messages `cache_read_input_tokens` /
 * `cache_creation_input_tokens` beside `input_tokens` (prompt-caching guide); Gemini
 * `usageMetadata.cachedContentTokenCount` (inside promptTokenCount) and `thoughtsTokenCount`
 * (beside candidates); Bedrock Converse `cacheReadInputTokens` / `cacheWriteInputTokens` beside
 * `inputTokens`; DeepSeek `prompt_cache_hit_tokens`; xAI reasoning outside completion_tokens.
 */
import { rows } from "./helpers/rows.js";
import { describe, expect, test } from "vitest";
import { FAST_RETRY, useGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { message, messageEnd, messageStart, textBlock, textBlockEvents } from "./providers/anthropic.fixture.js";
import { converse } from "./providers/bedrock.fixture.js";
import { candidate, response } from "./providers/google.fixture.js";

const model = (id: string, provider: string, upstream: string, pricing: Record<string, string>) => ({
  id,
  pricing,
  max_output: 100_000,
  context_length: 1_000_000,
  endpoints: [{ provider, model: upstream }],
});

const h = useGateway(
  (url) => ({
    server: { compat: "openai" },
    providers: {
      openai: { baseUrl: `${url}/v1`, apiKey: "sk-upstream-openai" },
      anthropic: { baseUrl: url, apiKey: "sk-ant-upstream" },
      google: { baseUrl: url, apiKey: "gemini-upstream" },
      bedrock: { baseUrl: url, apiKey: "AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG", region: "us-west-2" },
      deepseek: { baseUrl: url, apiKey: "sk-deepseek-upstream" },
      xai: { baseUrl: `${url}/v1`, apiKey: "xai-upstream" },
    },
    models: [
      // https://platform.openai.com/docs/pricing: o4-mini $1.10 input, $0.275 cached input, $4.40 output.
      model("openai/o4-mini", "openai", "o4-mini", { prompt: "1.1", cache_read: "0.275", completion: "4.4" }),
      // A model without a cache price: cached tokens at the prompt price.
      model("openai/gpt-4o-mini", "openai", "gpt-4o-mini", { prompt: "0.15", completion: "0.6" }),
      // https://www.anthropic.com/pricing: Sonnet 4.5 $3 input, $3.75 5-minute cache write, $0.30 cache read, $15 output.
      model("anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5-20250929", {
        prompt: "3",
        cache_write: "3.75",
        cache_read: "0.3",
        completion: "15",
      }),
      model("bedrock/claude-sonnet-4-5", "bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", {
        prompt: "3",
        cache_write: "3.75",
        cache_read: "0.3",
        completion: "15",
      }),
      // https://ai.google.dev/gemini-api/docs/pricing: 2.5 Flash $0.30 input, $0.03 cached, $2.50 output (thinking included).
      model("google/gemini-2.5-flash", "google", "gemini-2.5-flash", { prompt: "0.3", cache_read: "0.03", completion: "2.5" }),
      // https://api-docs.deepseek.com/quick_start/pricing: deepseek-chat $0.27 cache miss, $0.07 cache hit, $1.10 output.
      model("deepseek/deepseek-chat", "deepseek", "deepseek-chat", { prompt: "0.27", cache_read: "0.07", completion: "1.1" }),
      // https://docs.x.ai/docs/models: grok-code-fast-1 $0.20 input, $0.02 cached input, $1.50 output.
      model("xai/grok-code-fast-1", "xai", "grok-code-fast-1", { prompt: "0.2", cache_read: "0.02", completion: "1.5" }),
    ],
    retry: FAST_RETRY,
  }),
  { credits: "10" },
);

interface Row {
  list_cost: number;
  cost: number;
  uncollected: number;
  prompt_tokens: number;
  completion_tokens: number;
}

async function billed(action: () => Promise<unknown>): Promise<Row> {
  const all = () => rows<Row>(h.gw.db, "SELECT list_cost, cost, uncollected, prompt_tokens, completion_tokens FROM ledger ORDER BY id");
  {
    const before = (await all()).length;
    await action();
    await expect.poll(async () => (await all()).length).toBe(before + 1);
    return (await all()).at(-1)!;
  }
}

const ask = async (modelId: string, stream = false) => {
  const res = await h.post({ model: modelId, messages: [{ role: "user", content: "Hi" }], max_tokens: 1000, ...(stream && { stream: true }) });
  expect(res.status).toBe(200);
  if (!stream) return ((await res.json()) as { usage: unknown }).usage;
  const events = (await res.text())
    .split("\n\n")
    .map((e) => e.replace(/^data: /, "").trim())
    .filter((d) => d && d !== "[DONE]");
  return (JSON.parse(events.at(-1)!) as { usage: unknown }).usage;
};

describe("each part of the usage at its own price, rounded up once", () => {
  test("OpenAI: 1,024 cached of 1,200 prompt, 256 reasoning of 300 completion = 1,795,200 nano-USD", async () => {
    const reply = completion("ok", { prompt_tokens: 1200, completion_tokens: 300 }) as { json: any };
    reply.json.usage.prompt_tokens_details.cached_tokens = 1024;
    reply.json.usage.completion_tokens_details.reasoning_tokens = 256;
    h.fake.queue(reply);
    let usage: unknown;
    const row = await billed(async () => (usage = await ask("openai/o4-mini")));
    // 176 × 1,100 + 1,024 × 275 + 300 × 4,400 = 193,600 + 281,600 + 1,320,000.
    expect(row).toMatchObject({ list_cost: 1_795_200, cost: 1_795_200, uncollected: 0, prompt_tokens: 1200, completion_tokens: 300 });
    expect(usage).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: 256 },
    });
  });

  test("a model without a cache price bills cached tokens at the prompt price: 360,000 nano-USD", async () => {
    const reply = completion("ok", { prompt_tokens: 1200, completion_tokens: 300 }) as { json: any };
    reply.json.usage.prompt_tokens_details.cached_tokens = 1024;
    h.fake.queue(reply);
    // 1,200 × 150 + 300 × 600.
    expect(await billed(() => ask("openai/gpt-4o-mini"))).toMatchObject({ list_cost: 360_000, cost: 360_000 });
  });

  test("Anthropic: 50 uncached + 1,000 written + 2,000 read, 300 output = 9,000,000 nano-USD (answer and stream)", async () => {
    const usage = { input_tokens: 50, cache_creation_input_tokens: 1000, cache_read_input_tokens: 2000, output_tokens: 300 };
    // 50 × 3,000 + 1,000 × 3,750 + 2,000 × 300 + 300 × 15,000.
    const expected = { list_cost: 9_000_000, cost: 9_000_000, prompt_tokens: 3050, completion_tokens: 300 };
    const shown = { prompt_tokens: 3050, completion_tokens: 300, total_tokens: 3350, prompt_tokens_details: { cached_tokens: 2000 } };
    h.fake.queue(message([textBlock("ok")], usage));
    let seen: unknown;
    expect(await billed(async () => (seen = await ask("anthropic/claude-sonnet-4-5")))).toMatchObject(expected);
    expect(seen).toEqual(shown);
    // Streamed: the input side in message_start, the cumulative output in message_delta.
    h.fake.queue({
      sse: [
        messageStart({ input_tokens: 50, cache_creation_input_tokens: 1000, cache_read_input_tokens: 2000 }),
        ...textBlockEvents(0, ["o", "k"]),
        ...messageEnd("end_turn", { output_tokens: 300 }),
      ],
    });
    expect(await billed(async () => (seen = await ask("anthropic/claude-sonnet-4-5", true)))).toMatchObject(expected);
    expect(seen).toEqual(shown);
  });

  test("Bedrock: 10 uncached + 100 read + 50 written, 7 output = 352,500 nano-USD", async () => {
    h.fake.queue(converse([{ text: "ok" }], "end_turn", { inputTokens: 10, outputTokens: 7, cacheReadInputTokens: 100, cacheWriteInputTokens: 50 }));
    let seen: unknown;
    // 10 × 3,000 + 100 × 300 + 50 × 3,750 + 7 × 15,000.
    expect(await billed(async () => (seen = await ask("bedrock/claude-sonnet-4-5")))).toMatchObject({
      list_cost: 352_500,
      prompt_tokens: 160,
      completion_tokens: 7,
    });
    expect(seen).toEqual({ prompt_tokens: 160, completion_tokens: 7, total_tokens: 167, prompt_tokens_details: { cached_tokens: 100 } });
  });

  test("Gemini: 800 cached of 1,000 prompt, 100 candidates + 400 thoughts = 1,334,000 nano-USD", async () => {
    h.fake.queue({
      json: response([candidate([{ text: "ok" }], "STOP")], {
        promptTokenCount: 1000,
        cachedContentTokenCount: 800,
        candidatesTokenCount: 100,
        thoughtsTokenCount: 400,
      }),
    });
    let seen: unknown;
    // 200 × 300 + 800 × 30 + 500 × 2,500.
    expect(await billed(async () => (seen = await ask("google/gemini-2.5-flash")))).toMatchObject({
      list_cost: 1_334_000,
      prompt_tokens: 1000,
      completion_tokens: 500,
    });
    expect(seen).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 500,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 800 },
      completion_tokens_details: { reasoning_tokens: 400 },
    });
  });

  test("DeepSeek: prompt_cache_hit_tokens 1,024 of 1,200, 40 output = 163,200 nano-USD", async () => {
    const reply = completion("ok", { prompt_tokens: 1200, completion_tokens: 40 }) as { json: any };
    // DeepSeek's usage object (api-docs.deepseek.com, Create Chat Completion): no prompt_tokens_details.
    reply.json.usage = { prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240, prompt_cache_hit_tokens: 1024, prompt_cache_miss_tokens: 176 };
    h.fake.queue(reply);
    // 176 × 270 + 1,024 × 70 + 40 × 1,100.
    expect(await billed(() => ask("deepseek/deepseek-chat"))).toMatchObject({ list_cost: 163_200, prompt_tokens: 1200 });
  });

  test("xAI: reasoning outside completion_tokens is billed once as output, cached at its price = 305,040 nano-USD", async () => {
    // Recorded from api.x.ai (grok-code-fast-1; see test/providers/xai.test.ts): 213 + 23 + 175 = 411.
    const reply = completion("Oi!", { prompt_tokens: 213, completion_tokens: 23 }) as { json: any };
    reply.json.usage = {
      prompt_tokens: 213,
      completion_tokens: 23,
      total_tokens: 411,
      prompt_tokens_details: { text_tokens: 213, audio_tokens: 0, image_tokens: 0, cached_tokens: 192 },
      completion_tokens_details: { reasoning_tokens: 175, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
    h.fake.queue(reply);
    // 21 × 200 + 192 × 20 + 198 × 1,500.
    expect(await billed(() => ask("xai/grok-code-fast-1"))).toMatchObject({ list_cost: 305_040, prompt_tokens: 213, completion_tokens: 198 });
  });

  test("details larger than their totals are bounded, never billed twice; a non-count is an invalid answer", async () => {
    const reply = completion("ok", { prompt_tokens: 100, completion_tokens: 10 }) as { json: any };
    reply.json.usage.prompt_tokens_details.cached_tokens = 5000;
    reply.json.usage.completion_tokens_details.reasoning_tokens = 99;
    h.fake.queue(reply);
    let seen: unknown;
    // All 100 prompt tokens at the cached price: 100 × 275 + 10 × 4,400.
    expect(await billed(async () => (seen = await ask("openai/o4-mini")))).toMatchObject({ list_cost: 71_500 });
    expect(seen).toMatchObject({ prompt_tokens_details: { cached_tokens: 100 }, completion_tokens_details: { reasoning_tokens: 10 } });
    const bad = completion("ok") as { json: any };
    bad.json.usage.prompt_tokens_details.cached_tokens = "12";
    h.fake.queue(bad, bad, bad, bad);
    const res = await h.post({ model: "openai/o4-mini", messages: [{ role: "user", content: "Hi" }], max_tokens: 10 });
    expect(res.status).toBe(502);
  });
});
