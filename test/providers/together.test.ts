/** Together AI's documented differences (providers/together/index.ts). */
import { describe, expect, test } from "vitest";
import together from "../../providers/together/index.js";
import { billedFor, chunks, usePreset } from "./presets.fixture.js";

// Recorded Together stream (llama-stack tests/integration/recordings/responses/6730dcde0b73.json):
// no usage chunk; the chunk with finish_reason carries usage.
const togetherChunk = (content: string, finish: string | null = null, usage: unknown = null) => ({
  data: {
    id: "oBUtTzC-62bZhn-9801a1ee1bea25d8",
    object: "chat.completion.chunk",
    created: 1758039011,
    model: "meta-llama/Llama-3.3-70B-Instruct-Turbo-Free",
    choices: [
      { index: 0, delta: { content, role: "assistant", tool_calls: null, token_id: 9906 }, finish_reason: finish, logprobs: null, text: content, seed: null },
    ],
    system_fingerprint: null,
    usage,
  },
});

describe("together", () => {
  const h = usePreset("together");

  test("a single stop string goes out as an array; n and seed pass through", async () => {
    h.fake.queue({ sse: [togetherChunk("ok", "stop", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })] });
    await chunks(await h.post({ stop: "END", n: 1, seed: 5, stream: true }));
    expect(h.sent()).toMatchObject({ stop: ["END"], n: 1, seed: 5, stream: true });
    expect(h.sent()).not.toHaveProperty("stream_options");
  });

  test("finish reason eos reads as stop, and the finish chunk's usage is billed", async () => {
    h.fake.queue({
      sse: [
        togetherChunk("Hello"),
        togetherChunk("!"),
        togetherChunk("", "eos", {
          completion_tokens: 25,
          prompt_tokens: 39,
          total_tokens: 64,
          completion_tokens_details: null,
          prompt_tokens_details: null,
          cached_tokens: 0,
        }),
      ],
    });
    let out: Record<string, unknown>[] = [];
    const billed = await billedFor(h.gw, async () => {
      out = await chunks(await h.post({ stream: true }));
    });
    expect(out.at(-1)).toMatchObject({ choices: [{ finish_reason: "stop" }], usage: { prompt_tokens: 39, completion_tokens: 25, total_tokens: 64 } });
    expect(billed).toMatchObject({ prompt_tokens: 39, completion_tokens: 25, usage_source: "provider" });
  });
});

test("together models list is a bare array; only chat models are kept", () => {
  const list = [
    {
      id: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
      object: "model",
      created: 1733443923,
      type: "chat",
      display_name: "Llama 3.3 70B",
      context_length: 131072,
      pricing: { input: 0.88, output: 0.88, base: 0, finetune: 0, hourly: 0 },
    },
    { id: "BAAI/bge-large-en-v1.5", object: "model", created: 1705000000, type: "embedding", context_length: 512 },
  ];
  expect(together.models!.response(list)).toEqual([{ id: "meta-llama/Llama-3.3-70B-Instruct-Turbo", contextLength: 131072 }]);
  expect(() => together.models!.response({ data: [] })).toThrow();
});
