/** Groq's documented differences (providers/groq/index.ts). */
import { describe, expect, test } from "vitest";
import groq from "../../providers/groq/index.js";
import { completion } from "../helpers/openai-wire.js";
import { billedFor, chunks, usePreset } from "./presets.fixture.js";

// A Groq stream as groq/groq-typescript's ChatCompletionChunk describes it: `x_groq.id` on the
// first chunk, `x_groq.usage` ("Only sent in the final chunk") on the chunk with finish_reason.
const groqChunk = (delta: Record<string, unknown>, finish: string | null = null, xGroq?: Record<string, unknown>) => ({
  data: {
    id: "chatcmpl-4d5f1a2b-5c3e-4f1d-9a3b-1c2d3e4f5a6b",
    object: "chat.completion.chunk",
    created: 1729528140,
    model: "llama-3.1-8b-instant",
    system_fingerprint: "fp_179b0f92c9",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(xGroq && { x_groq: xGroq }),
  },
});
const xGroqUsage = {
  prompt_tokens: 18,
  completion_tokens: 7,
  total_tokens: 25,
  queue_time: 0.0123,
  prompt_time: 0.0011,
  completion_time: 0.0058,
  total_time: 0.0069,
};

describe("groq", () => {
  const h = usePreset("groq", {}, "/openai/v1");

  test("n > 1 is a 400 naming n, and nothing goes upstream", async () => {
    const res = await h.post({ n: 2 });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "unsupported_parameter" });
    expect(body.error.message).toMatch(/^n: /);
    expect(h.fake.requests).toHaveLength(0);
  });

  test("n = 1 and the other parameters pass through to /openai/v1/chat/completions", async () => {
    h.fake.queue(completion("ok"));
    const res = await h.post({ n: 1, seed: 7, presence_penalty: 0.1 });
    expect(res.status).toBe(200);
    expect(h.fake.requests[0]!.path).toBe("/openai/v1/chat/completions");
    expect(h.sent()).toMatchObject({ n: 1, seed: 7, presence_penalty: 0.1 });
  });

  test("usage sent in x_groq.usage on the last chunk is read and billed", async () => {
    h.fake.queue({
      sse: [
        groqChunk({ role: "assistant", content: "" }, null, { id: "req_01jaf8m3b4e9x8k7r6t5y4u3i2" }),
        groqChunk({ content: "Hello" }),
        groqChunk({}, "stop", { id: "req_01jaf8m3b4e9x8k7r6t5y4u3i2", usage: xGroqUsage }),
      ],
    });
    let out: Record<string, unknown>[] = [];
    const billed = await billedFor(h.gw, async () => {
      out = await chunks(await h.post({ stream: true }));
    });
    expect(h.sent()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(out.at(-1)).toMatchObject({ choices: [{ finish_reason: "stop" }], usage: { prompt_tokens: 18, completion_tokens: 7, total_tokens: 25 } });
    expect(billed).toEqual({ prompt_tokens: 18, completion_tokens: 7, usage_source: "provider" });
  });

  test("x_groq.usage and a standard usage chunk in one stream are not added up", async () => {
    const usage = { prompt_tokens: 18, completion_tokens: 7, total_tokens: 25 };
    h.fake.queue({
      sse: [groqChunk({ content: "Hi" }), groqChunk({}, "stop", { usage: xGroqUsage }), { data: { ...groqChunk({}).data, choices: [], usage } }],
    });
    const out = await chunks(await h.post({ stream: true }));
    expect(out.at(-1)).toMatchObject({ usage: { prompt_tokens: 18, completion_tokens: 7, total_tokens: 25 } });
  });
});

test("groq models list reads context_window and max_completion_tokens", () => {
  const list = {
    object: "list",
    data: [
      {
        id: "llama-3.1-8b-instant",
        object: "model",
        created: 1693721698,
        owned_by: "Meta",
        active: true,
        context_window: 131072,
        public_apps: null,
        max_completion_tokens: 131072,
      },
    ],
  };
  expect(groq.models!.response(list)).toEqual([{ id: "llama-3.1-8b-instant", contextLength: 131072, maxOutput: 131072 }]);
});
