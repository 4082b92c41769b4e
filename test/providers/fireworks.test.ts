/** Fireworks AI's documented differences (providers/fireworks/index.ts). */
import { describe, expect, test } from "vitest";
import { completion } from "../helpers/openai-wire.js";
import { usePreset } from "./presets.fixture.js";

describe("fireworks", () => {
  const h = usePreset("fireworks", { maxTokens: 4096 }, "/inference/v1");

  test("requests go to /inference/v1/chat/completions; n, seed and penalties pass through", async () => {
    h.fake.queue(completion("ok"));
    await h.post({ n: 2, seed: 3, presence_penalty: 0.2 });
    expect(h.fake.requests[0]!.path).toBe("/inference/v1/chat/completions");
    expect(h.sent()).toMatchObject({ n: 2, seed: 3, presence_penalty: 0.2 });
  });

  test("streams go out without stream_options: the finish chunk always has usage", async () => {
    h.fake.queue({
      sse: [
        {
          data: {
            id: "d583f66e",
            object: "chat.completion.chunk",
            created: 1758920391,
            model: "m",
            choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "stop" }],
            usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
          },
        },
      ],
    });
    await (await h.post({ stream: true })).text();
    expect(h.sent()).toMatchObject({ stream: true });
    expect(h.sent()).not.toHaveProperty("stream_options");
  });

  test("the instance's maxTokens replaces Fireworks' default of 200 when the request sets none", async () => {
    h.fake.queue(completion("a"), completion("b"));
    await h.post({});
    expect(h.sent()).toMatchObject({ max_tokens: 4096 });
    await h.post({ max_tokens: 50 });
    expect(h.sent()).toMatchObject({ max_tokens: 50 });
  });
});
