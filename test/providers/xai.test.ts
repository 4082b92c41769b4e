/** xAI counts reasoning outside completion_tokens (providers/xai/index.ts). */
import { describe, expect, test } from "vitest";
import { completion } from "../helpers/openai-wire.js";
import { billedFor, chunks, usePreset } from "./presets.fixture.js";

// Recorded from api.x.ai with grok-code-fast-1 (charmbracelet/fantasy providertests/testdata/
// TestXAICommon/xai-grok-code-fast/simple.yaml and simple_streaming.yaml): 213 + 23 + 175 = 411.
const reasoningUsage = (completionTokens: number, reasoning: number) => ({
  prompt_tokens: 213,
  completion_tokens: completionTokens,
  total_tokens: 213 + completionTokens + reasoning,
  prompt_tokens_details: { text_tokens: 213, audio_tokens: 0, image_tokens: 0, cached_tokens: 192 },
  completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  num_sources_used: 0,
});
const xaiCompletion = {
  json: {
    id: "81b779ac-c6c0-022d-5c70-62a6f899343f_us-east-1",
    object: "chat.completion",
    created: 1761231377,
    model: "grok-code-fast-1",
    choices: [{ index: 0, message: { role: "assistant", content: "Oi!", refusal: null }, finish_reason: "stop" }],
    usage: reasoningUsage(23, 175),
    system_fingerprint: "fp_10f00c862d",
  },
};
const xaiChunk = (choices: unknown[], usage?: unknown) => ({
  data: {
    id: "da8e02b5-c40e-2b4b-33ec-f867d1ba3d3e_us-east-1",
    object: "chat.completion.chunk",
    created: 1761231383,
    model: "grok-code-fast-1",
    choices,
    ...(usage !== undefined && { usage }),
    system_fingerprint: "fp_10f00c862d",
  },
});

describe("xai", () => {
  const h = usePreset("xai");

  test("reasoning tokens count as completion tokens, so total_tokens matches xAI's", async () => {
    h.fake.queue(xaiCompletion);
    let body: any;
    const billed = await billedFor(h.gw, async () => {
      body = await (await h.post({})).json();
    });
    expect(body.usage).toEqual({
      prompt_tokens: 213,
      completion_tokens: 198,
      total_tokens: 411,
      prompt_tokens_details: { cached_tokens: 192 },
      completion_tokens_details: { reasoning_tokens: 175 },
    });
    expect(billed).toMatchObject({ prompt_tokens: 213, completion_tokens: 198 });
  });

  test("the same in a stream, whose usage-only chunk follows the finish chunk", async () => {
    h.fake.queue({
      sse: [
        xaiChunk([{ index: 0, delta: { reasoning_content: "First", role: "assistant" } }]),
        xaiChunk([{ index: 0, delta: { content: "Oi" } }]),
        xaiChunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
        xaiChunk([], reasoningUsage(27, 133)),
      ],
    });
    let out: Record<string, unknown>[] = [];
    const billed = await billedFor(h.gw, async () => {
      out = await chunks(await h.post({ stream: true }));
    });
    expect(h.sent()).toMatchObject({ stream_options: { include_usage: true } });
    expect(out.at(-1)).toMatchObject({ choices: [{ finish_reason: "stop" }], usage: { prompt_tokens: 213, completion_tokens: 160, total_tokens: 373 } });
    expect(billed).toMatchObject({ prompt_tokens: 213, completion_tokens: 160 });
  });

  test("usage without reasoning outside completion_tokens is left as it is", async () => {
    const r = completion("hi", { prompt_tokens: 12, completion_tokens: 30 }) as { json: any };
    r.json.usage.completion_tokens_details.reasoning_tokens = 20; // OpenAI-style: already inside completion_tokens
    h.fake.queue(r);
    const body = (await (await h.post({})).json()) as any;
    expect(body.usage).toEqual({ prompt_tokens: 12, completion_tokens: 30, total_tokens: 42, completion_tokens_details: { reasoning_tokens: 20 } });
  });
});
