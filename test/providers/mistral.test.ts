/** Mistral's documented differences from the OpenAI wire format (providers/mistral/wire.ts). */
import { describe, expect, test } from "vitest";
import mistral from "../../providers/mistral/index.js";
import { chunks, usePreset } from "./presets.fixture.js";

// A recorded Mistral stream (M-Lai-ai/LLM-Provider-reference Mistral/streaming.md): no usage
// chunk; the last chunk carries finish_reason and usage together.
const mistralChunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: Record<string, number>) => ({
  data: {
    id: "f798ebd5c41a45d88bb079635121cade",
    object: "chat.completion.chunk",
    created: 1732548656,
    model: "mistral-large-latest",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage && { usage }),
  },
});

const mistralCompletion = (content: string | null, finish: string, extra: Record<string, unknown> = {}) => ({
  json: {
    id: "cmpl-e5cc70bb28c444948073e77776eb30ef",
    object: "chat.completion",
    created: 1702256327,
    model: "mistral-small-latest",
    choices: [{ index: 0, message: { role: "assistant", content, tool_calls: null, ...extra }, finish_reason: finish }],
    usage: { prompt_tokens: 16, completion_tokens: 34, total_tokens: 50 },
  },
});

describe("mistral", () => {
  const h = usePreset("mistral");

  test("seed goes out as random_seed; n and penalties pass through", async () => {
    h.fake.queue(mistralCompletion("ok", "stop"));
    const res = await h.post({ seed: 42, n: 2, presence_penalty: 0.5, frequency_penalty: 0.25 });
    expect(res.status).toBe(200);
    const sent = h.sent();
    expect(sent).toMatchObject({ random_seed: 42, n: 2, presence_penalty: 0.5, frequency_penalty: 0.25 });
    expect(sent).not.toHaveProperty("seed");
  });

  test("a stream asks without stream_options and bills the usage of the finish chunk", async () => {
    h.fake.queue({
      sse: [
        mistralChunk({ role: "assistant", content: "" }),
        mistralChunk({ content: "Coca" }),
        mistralChunk({ content: "-Cola" }, "length", { prompt_tokens: 34, total_tokens: 134, completion_tokens: 100 }),
      ],
    });
    const res = await h.post({ stream: true, stream_options: { include_usage: true } });
    const out = await chunks(res);
    expect(h.sent()).toMatchObject({ stream: true });
    expect(h.sent()).not.toHaveProperty("stream_options");
    expect(out.map((c) => (c.choices as any[])[0]?.delta?.content ?? "").join("")).toBe("Coca-Cola");
    expect(out.at(-1)).toMatchObject({ choices: [{ finish_reason: "length" }], usage: { prompt_tokens: 34, completion_tokens: 100, total_tokens: 134 } });
  });

  test("tool call ids become nine alphanumerics, the same for a call and its result", async () => {
    h.fake.queue(
      mistralCompletion(null, "tool_calls", { tool_calls: [{ id: "D681PevKs", type: "function", function: { name: "get_time", arguments: "{}" } }] }),
    );
    const res = await h.post({
      messages: [
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_abc123", type: "function", function: { name: "weather", arguments: "{}" } },
            { id: "Ab3dE6gH9", type: "function", function: { name: "weather", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "call_abc123", content: "21" },
        { role: "tool", tool_call_id: "Ab3dE6gH9", content: "22" },
      ],
    });
    const body = (await res.json()) as any;
    expect(body.choices[0].message.tool_calls[0].id).toBe("D681PevKs");
    const [, assistant, result1, result2] = h.sent().messages as any[];
    const mapped = assistant.tool_calls[0].id;
    expect(mapped).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(result1.tool_call_id).toBe(mapped);
    expect(assistant.tool_calls[1].id).toBe("Ab3dE6gH9");
    expect(result2.tool_call_id).toBe("Ab3dE6gH9");
  });

  test("finish reason model_length is a truncation", async () => {
    h.fake.queue(mistralCompletion("cut", "model_length"));
    const body = (await (await h.post({})).json()) as any;
    expect(body.choices[0].finish_reason).toBe("length");
  });

  test("a name on a user message is a 400 naming it, and nothing goes upstream", async () => {
    const res = await h.post({ messages: [{ role: "user", content: "Hi", name: "alice" }] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "unsupported_parameter" });
    expect(body.error.message).toContain("messages[].name");
    expect(h.fake.requests).toHaveLength(0);
  });

  // Last: failing every attempt opens the endpoint's circuit for the tests after it.
  test("finish reason error fails the endpoint rather than returning a broken answer", async () => {
    h.fake.fallback = () => mistralCompletion("", "error");
    try {
      const res = await h.post({});
      expect(res.status).toBe(503);
      expect(h.fake.requests.length).toBeGreaterThan(1);
    } finally {
      h.fake.fallback = () => ({ status: 500, json: { error: "no reply scripted" } });
    }
  });
});

test("mistral models list reads max_context_length and skips non-chat models", () => {
  // GET /v1/models (mistralai/client-ts docs/models/components/basemodelcard.md)
  const list = {
    object: "list",
    data: [
      {
        id: "mistral-large-latest",
        object: "model",
        owned_by: "mistralai",
        max_context_length: 131072,
        capabilities: { completion_chat: true, function_calling: true },
      },
      { id: "mistral-embed", object: "model", owned_by: "mistralai", max_context_length: 8192, capabilities: { completion_chat: false } },
    ],
  };
  expect(mistral.models!.response(list)).toEqual([{ id: "mistral-large-latest", contextLength: 131072 }]);
});
