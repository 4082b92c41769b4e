/** DeepSeek's documented differences (providers/deepseek/index.ts). */
import { describe, expect, test } from "vitest";
import { billedFor, usePreset } from "./presets.fixture.js";

// The reference's example response (api-docs.deepseek.com, Create Chat Completion): prompt_tokens
// is the sum of prompt_cache_hit_tokens and prompt_cache_miss_tokens.
const deepseekCompletion = (
  finish: string,
  usage = {
    prompt_tokens: 10,
    completion_tokens: 11,
    total_tokens: 21,
    prompt_tokens_details: { cached_tokens: 0 },
    prompt_cache_hit_tokens: 0,
    prompt_cache_miss_tokens: 10,
  },
) => ({
  json: {
    id: "48ad6b6e-b2f7-4059-b9cf-aa5d966f8f22",
    object: "chat.completion",
    created: 1766977481,
    model: "deepseek-chat",
    choices: [{ index: 0, message: { role: "assistant", content: "Hello! How can I assist you today? 😊" }, logprobs: null, finish_reason: finish }],
    usage,
    system_fingerprint: "fp_eaab8d114b_prod0820_fp8_kvcache",
  },
});

describe("deepseek", () => {
  const h = usePreset("deepseek", {}, "");

  test("the chat URL has no version path, as DeepSeek documents it", async () => {
    h.fake.queue(deepseekCompletion("stop"));
    expect((await h.post({})).status).toBe(200);
    expect(h.fake.requests[0]!.path).toBe("/chat/completions");
  });

  test("n > 1 and seed are 400s naming them; nothing goes upstream", async () => {
    for (const [body, field] of [
      [{ n: 3 }, "n"],
      [{ seed: 1 }, "seed"],
    ] as const) {
      const res = await h.post(body);
      expect(res.status).toBe(400);
      const err = ((await res.json()) as any).error;
      expect(err).toMatchObject({ type: "invalid_request_error", code: "unsupported_parameter" });
      expect(err.message.startsWith(`${field}: `)).toBe(true);
    }
    expect(h.fake.requests).toHaveLength(0);
  });

  test("n = 1 is left out of the body; penalties and stop pass through", async () => {
    h.fake.queue(deepseekCompletion("stop"));
    await h.post({ n: 1, frequency_penalty: 0.3, stop: "END" });
    expect(h.sent()).not.toHaveProperty("n");
    expect(h.sent()).toMatchObject({ frequency_penalty: 0.3, stop: "END" });
  });

  test("cache hits are inside prompt_tokens: billed once, not added again", async () => {
    const usage = {
      prompt_tokens: 1200,
      completion_tokens: 40,
      total_tokens: 1240,
      prompt_tokens_details: { cached_tokens: 1024 },
      prompt_cache_hit_tokens: 1024,
      prompt_cache_miss_tokens: 176,
    };
    h.fake.queue(deepseekCompletion("stop", usage));
    let body: any;
    const billed = await billedFor(h.gw, async () => {
      body = await (await h.post({})).json();
    });
    expect(body.usage).toEqual({ prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240, prompt_tokens_details: { cached_tokens: 1024 } });
    expect(billed).toMatchObject({ prompt_tokens: 1200, completion_tokens: 40 });
  });

  test("finish reason insufficient_system_resource is retried instead of returned", async () => {
    h.fake.queue(deepseekCompletion("insufficient_system_resource"), deepseekCompletion("stop"));
    const res = await h.post({});
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).choices[0].finish_reason).toBe("stop");
    expect(h.fake.requests).toHaveLength(2);
  });
});
