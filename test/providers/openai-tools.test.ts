/**
 * The OpenAI superset (server.compat: openai) through the OpenAI adapter: forwarded as OpenAI
 * defines it (https://platform.openai.com/docs/api-reference/chat/create) and read back with
 * refusal, logprobs and content_filter (chat/object, chat-streaming). The fake upstream answers
 * in OpenAI's wire format and each test asserts what it received; the client is the official
 * `openai` package, unchanged.
 */
import { describe, expect, test } from "vitest";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { completion } from "../helpers/openai-wire.js";

const MODEL = "openai/gpt-4o-mini";
const hi = [{ role: "user", content: "Weather in Paris?" }];
const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: true,
  },
} as const;
const clock = { type: "function", function: { name: "get_time" } } as const;
const call = (id: string, name: string, args: string) => ({ id, type: "function", function: { name, arguments: args } });

/** chat.completion.chunk events as the streaming reference shows them, then a usage chunk. */
const chunk = (choices: unknown[], usage: unknown = null) => ({
  id: "chatcmpl-s",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-4o-mini",
  choices,
  usage,
});
const streamOf = (deltas: Array<Record<string, unknown>>, finish: string) => ({
  sse: [
    ...deltas.map((delta) => ({ data: chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]) })),
    { data: chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]) },
    { data: chunk([], { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 }) },
  ],
});

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: { openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-tools" } },
    models: [{ id: MODEL, pricing: { prompt: "0.15", completion: "0.6" }, max_output: 16384, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
    retry: FAST_RETRY,
  }),
  { credits: "100", body: { model: MODEL, messages: hi } },
);

const client = () => h.gw.client(h.key);

describe("tools", () => {
  test.each([
    ["required", "required"],
    [
      { type: "function", function: { name: "get_time" } },
      { type: "function", function: { name: "get_time" } },
    ],
  ])("tools and tool_choice %j are forwarded exactly", async (choice, expected) => {
    h.fake.queue(completion(null, undefined, { tool_calls: [call("call_Ab1", "get_time", "{}")] }));
    const r = await client().chat.completions.create({
      model: MODEL,
      messages: hi as never,
      tools: [weather, clock] as never,
      tool_choice: choice as never,
      parallel_tool_calls: false,
    });
    expect(h.sent()).toMatchObject({ model: "gpt-4o-mini", tools: [weather, clock], tool_choice: expected, parallel_tool_calls: false });
    expect(r.choices[0]!.finish_reason).toBe("tool_calls");
    expect(r.choices[0]!.message).toMatchObject({ content: null, refusal: null, tool_calls: [call("call_Ab1", "get_time", "{}")] });
  });

  test("a two-turn round trip keeps the ids: the answer's ids reach the client, the client's reach OpenAI", async () => {
    h.fake.queue(completion(null, undefined, { tool_calls: [call("call_w1", "get_weather", '{"city":"Paris"}')] }));
    const first = await client().chat.completions.create({ model: MODEL, messages: hi as never, tools: [weather] as never });
    const asked = first.choices[0]!.message;
    expect(asked.tool_calls?.[0]?.id).toBe("call_w1");
    h.fake.queue(completion("21°C in Paris."));
    const second = await client().chat.completions.create({
      model: MODEL,
      tools: [weather] as never,
      messages: [...hi, asked, { role: "tool", tool_call_id: "call_w1", content: "21" }] as never,
    });
    const [, assistant, result] = h.sent().messages;
    expect(assistant).toMatchObject({ role: "assistant", content: null, tool_calls: [call("call_w1", "get_weather", '{"city":"Paris"}')] });
    expect(result).toEqual({ role: "tool", tool_call_id: "call_w1", content: "21" });
    expect(second.choices[0]!.message.content).toBe("21°C in Paris.");
  });

  test("parallel calls come back in order, and a call with empty arguments comes back with {}", async () => {
    h.fake.queue(completion(null, undefined, { tool_calls: [call("call_1", "get_weather", '{"city":"Paris"}'), call("call_2", "get_time", "")] }));
    const r = await client().chat.completions.create({ model: MODEL, messages: hi as never, tools: [weather, clock] as never });
    expect(r.choices[0]!.message.tool_calls).toEqual([call("call_1", "get_weather", '{"city":"Paris"}'), call("call_2", "get_time", "{}")]);
  });

  test("a streamed tool call is assembled by the client's stream helper", async () => {
    h.fake.queue(
      streamOf(
        [
          { role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_s1", type: "function", function: { name: "get_weather", arguments: "" } }] },
          { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
          { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
          { tool_calls: [{ index: 1, id: "call_s2", type: "function", function: { name: "get_time", arguments: "" } }] },
        ],
        "tool_calls",
      ),
    );
    const final = await client()
      .chat.completions.stream({ model: MODEL, messages: hi as never, tools: [weather, clock] as never })
      .finalChatCompletion();
    expect(h.sent()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.tool_calls).toMatchObject([call("call_s1", "get_weather", '{"city":"Paris"}'), call("call_s2", "get_time", "{}")]);
  });

  test("fragments without index (Ollama, Gemini's compat endpoint) get one: each new id is a new call", async () => {
    h.fake.queue(
      streamOf(
        [
          {
            role: "assistant",
            content: "",
            tool_calls: [{ id: "call_o1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
          },
          { tool_calls: [{ id: "call_o2", type: "function", function: { name: "get_weather", arguments: '{"city":' } }] },
          { tool_calls: [{ function: { arguments: '"Rome"}' } }] },
        ],
        "tool_calls",
      ),
    );
    const final = await client()
      .chat.completions.stream({ model: MODEL, messages: hi as never, tools: [weather] as never })
      .finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls).toMatchObject([
      call("call_o1", "get_weather", '{"city":"Paris"}'),
      call("call_o2", "get_weather", '{"city":"Rome"}'),
    ]);
  });
});

describe("fields forwarded as OpenAI defines them", () => {
  test("response_format json_schema, developer, text and image parts (https and data URL) go upstream unchanged", async () => {
    const format = {
      type: "json_schema",
      json_schema: {
        name: "weather",
        strict: true,
        schema: { type: "object", properties: { c: { type: "number" } }, required: ["c"], additionalProperties: false },
      },
    };
    const parts = [
      { type: "text", text: "What is in " },
      { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ];
    h.fake.queue(completion('{"c":21}'));
    const r = await client().chat.completions.create({
      model: MODEL,
      response_format: format as never,
      user: "u-1",
      metadata: { app: "t" },
      max_tokens: 50,
      messages: [
        { role: "developer", content: "Answer in JSON." },
        { role: "user", content: parts },
      ] as never,
    });
    expect(h.sent()).toMatchObject({ response_format: format, user: "u-1", metadata: { app: "t" }, max_completion_tokens: 50 });
    expect(h.sent()).not.toHaveProperty("max_tokens");
    expect(h.sent().messages).toEqual([
      { role: "developer", content: "Answer in JSON." },
      { role: "user", content: parts },
    ]);
    expect(r.choices[0]!.message.content).toBe('{"c":21}');
  });

  test("logprobs are forwarded and returned in choices[].logprobs", async () => {
    const logprobs = {
      content: [{ token: "Hi", logprob: -0.01, bytes: [72, 105], top_logprobs: [{ token: "Hi", logprob: -0.01, bytes: [72, 105] }] }],
      refusal: null,
    };
    const reply = completion("Hi") as { json: any };
    reply.json.choices[0].logprobs = logprobs;
    h.fake.queue(reply);
    const r = await client().chat.completions.create({ model: MODEL, messages: hi as never, logprobs: true, top_logprobs: 1 });
    expect(h.sent()).toMatchObject({ logprobs: true, top_logprobs: 1 });
    expect(r.choices[0]!.logprobs).toEqual(logprobs);
    const streamed = streamOf([{ role: "assistant", content: "Hi" }], "stop");
    (streamed.sse[0]!.data.choices[0] as { logprobs: unknown }).logprobs = logprobs;
    h.fake.queue(streamed);
    const text = await (await h.post({ stream: true, logprobs: true })).text();
    expect(JSON.parse(text.split("\n\n")[0]!.slice(6)).choices[0]).toMatchObject({ delta: { content: "Hi" }, logprobs });
  });

  test("a refusal is returned as message.refusal, streamed or not; content_filter stays itself", async () => {
    h.fake.queue(completion(null, undefined, { refusal: "I can't help with that." }));
    const r = await client().chat.completions.create({ model: MODEL, messages: hi as never });
    expect(r.choices[0]!.message).toMatchObject({ content: null, refusal: "I can't help with that." });
    h.fake.queue(streamOf([{ role: "assistant", content: null, refusal: "I can't" }, { refusal: " help." }], "content_filter"));
    const final = await client()
      .chat.completions.stream({ model: MODEL, messages: hi as never })
      .finalChatCompletion();
    expect(final.choices[0]!.message.refusal).toBe("I can't help.");
    expect(final.choices[0]!.finish_reason).toBe("content_filter");
  });

  test("explicit nulls are absent: nothing of them goes upstream", async () => {
    h.fake.queue(completion("ok"));
    const res = await h.post({ tools: null, tool_choice: null, user: null, temperature: null, response_format: null });
    expect(res.status).toBe(200);
    for (const field of ["tools", "tool_choice", "user", "temperature", "response_format"]) expect(h.sent()).not.toHaveProperty(field);
  });
});

describe("refused before any upstream call", () => {
  test.each([
    [{ max_tokens: 10, max_completion_tokens: 10 }, "max_completion_tokens"],
    [{ frobnicate: true }, "frobnicate"],
  ])("%j is a 400 with param %s", async (extra, param) => {
    const res = await h.post(extra);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { param: string; message: string } };
    expect(body.error.param).toBe(param);
    expect(body.error.message).toContain(param);
    expect(h.fake.requests).toHaveLength(0);
  });
});
