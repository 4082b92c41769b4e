/**
 * The OpenAI superset (server.compat: openai) translated for Mistral's chat API
 * (https://docs.mistral.ai/api/#tag/chat; field forms from mistralai/client-ts
 * docs/models/components: ChatCompletionRequest, ToolChoiceEnum, ImageURLChunk). Mistral answers
 * like OpenAI (fixtures as in mistral.test.ts, from a recorded Mistral stream); each test
 * asserts what the fake received. The client is the official `openai` package, unchanged.
 */
import { describe, expect, test } from "vitest";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { mistralToolCallId } from "../../providers/mistral/tool-ids.js";

const MODEL = "mistral/large";
const hi = [{ role: "user", content: "Weather in Paris?" }];
const weather = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } } as const;
const call = (id: string, args: string) => ({ id, type: "function", function: { name: "get_weather", arguments: args } });
const usage = { prompt_tokens: 16, completion_tokens: 34, total_tokens: 50 };

const answer = (message: Record<string, unknown>, finish: string) => ({
  json: {
    id: "cmpl-e5cc70bb28c444948073e77776eb30ef",
    object: "chat.completion",
    created: 1702256327,
    model: "mistral-large-latest",
    choices: [{ index: 0, message: { role: "assistant", tool_calls: null, ...message }, finish_reason: finish }],
    usage,
  },
});
const chunk = (delta: Record<string, unknown>, finish: string | null = null, last = false) => ({
  data: {
    id: "f798ebd5c41a45d88bb079635121cade",
    object: "chat.completion.chunk",
    created: 1732548656,
    model: "mistral-large-latest",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(last && { usage }),
  },
});

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: { mistral: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-mistral-tools" } },
    models: [{ id: MODEL, pricing: { prompt: "2", completion: "6" }, max_output: 8192, endpoints: [{ provider: "mistral", model: "mistral-large-latest" }] }],
    retry: FAST_RETRY,
  }),
  { credits: "100", body: { model: MODEL, messages: hi } },
);

const client = () => h.gw.client(h.key);

describe("tools", () => {
  test("a two-turn round trip: Mistral's ids reach the client and come back unchanged; the client's own ids map the same way for call and result", async () => {
    h.fake.queue(answer({ content: "", tool_calls: [call("D681PevKs", '{"city":"Paris"}')] }, "tool_calls"));
    const first = await client().chat.completions.create({ model: MODEL, messages: hi as never, tools: [weather] as never });
    const asked = first.choices[0]!.message;
    expect(asked.tool_calls).toEqual([call("D681PevKs", '{"city":"Paris"}')]);
    h.fake.queue(answer({ content: "21°C." }, "stop"));
    await client().chat.completions.create({
      model: MODEL,
      tools: [weather] as never,
      messages: [
        ...hi,
        asked,
        { role: "tool", tool_call_id: "D681PevKs", content: "21" },
        { role: "assistant", content: null, tool_calls: [call("call_from_openai_1", '{"city":"Rome"}')] },
        { role: "tool", tool_call_id: "call_from_openai_1", content: "25" },
      ] as never,
    });
    const [, a1, r1, a2, r2] = h.sent().messages;
    expect(a1.tool_calls[0].id).toBe("D681PevKs");
    expect(r1).toEqual({ role: "tool", tool_call_id: "D681PevKs", content: "21" });
    expect(a1).not.toHaveProperty("refusal"); // echoed OpenAI-only keys are not Mistral's
    expect(a2.tool_calls[0].id).toBe(mistralToolCallId("call_from_openai_1"));
    expect(r2.tool_call_id).toBe(a2.tool_calls[0].id);
  });

  test.each([
    ["required", "any"],
    ["none", "none"],
    [
      { type: "function", function: { name: "get_weather" } },
      { type: "function", function: { name: "get_weather" } },
    ],
  ])("tool_choice %j goes out as %j; parallel_tool_calls passes through", async (choice, expected) => {
    h.fake.queue(answer({ content: "ok" }, "stop"));
    const res = await h.post({ tools: [weather], tool_choice: choice, parallel_tool_calls: false });
    expect(res.status).toBe(200);
    expect(h.sent()).toMatchObject({ tools: [weather], tool_choice: expected, parallel_tool_calls: false });
  });

  test("parallel calls streamed whole, all numbered 0 by Mistral, are assembled as two calls by the client's stream helper", async () => {
    h.fake.queue({
      sse: [
        chunk({ role: "assistant", content: "" }),
        chunk({ tool_calls: [{ id: "aaaaaaaa1", function: { name: "get_weather", arguments: '{"city":"Paris"}' }, index: 0 }] }),
        chunk({ tool_calls: [{ id: "bbbbbbbb2", function: { name: "get_weather", arguments: '{"city":"Rome"}' }, index: 0 }] }),
        chunk({ content: "" }, "tool_calls", true),
      ],
    });
    const final = await client()
      .chat.completions.stream({ model: MODEL, messages: hi as never, tools: [weather] as never })
      .finalChatCompletion();
    expect(h.sent()).not.toHaveProperty("stream_options");
    expect(final.choices[0]!.message.tool_calls).toMatchObject([call("aaaaaaaa1", '{"city":"Paris"}'), call("bbbbbbbb2", '{"city":"Rome"}')]);
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
  });
});

describe("messages and formats", () => {
  test("image parts go out in Mistral's ImageURLChunk form; developer becomes system; max_completion_tokens is max_tokens", async () => {
    h.fake.queue(answer({ content: "A cat." }, "stop"));
    const res = await h.post({
      max_completion_tokens: 64,
      user: "u-1",
      messages: [
        { role: "developer", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" } },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(h.sent().messages).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: "https://example.com/cat.png" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" } },
        ],
      },
    ]);
    expect(h.sent()).toMatchObject({ max_tokens: 64 });
    expect(h.sent()).not.toHaveProperty("max_completion_tokens");
    expect(h.sent()).not.toHaveProperty("user");
  });

  test("response_format json_schema is Mistral's own form and passes through", async () => {
    const format = { type: "json_schema", json_schema: { name: "weather", strict: true, schema: { type: "object", properties: { c: { type: "number" } } } } };
    h.fake.queue(answer({ content: '{"c":21}' }, "stop"));
    const r = await client().chat.completions.create({ model: MODEL, messages: hi as never, response_format: format as never });
    expect(h.sent().response_format).toEqual(format);
    expect(r.choices[0]!.message.content).toBe('{"c":21}');
  });

  test("a reasoning answer's content chunks: the text is the content, thinking is left out", async () => {
    h.fake.queue(
      answer(
        {
          content: [
            { type: "thinking", thinking: [{ type: "text", text: "Hmm." }] },
            { type: "text", text: "42" },
          ],
        },
        "stop",
      ),
    );
    const r = await client().chat.completions.create({ model: MODEL, messages: hi as never });
    expect(r.choices[0]!.message.content).toBe("42");
  });

  test.each([
    [{ logit_bias: { "50256": -100 } }, "logit_bias"],
    [{ logprobs: true }, "logprobs"],
    [{ service_tier: "flex" }, "service_tier"],
  ])("%j, which Mistral's API lacks, is a 400 naming it and nothing goes upstream", async (extra, param) => {
    const res = await h.post(extra);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; param: string } };
    expect(body.error).toMatchObject({ code: "unsupported_parameter", param });
    expect(h.fake.requests).toHaveLength(0);
  });
});
