/**
 * The OpenAI superset (server.compat: openai) translated for the Anthropic Messages API:
 * tools, tool_choice, tool ids, streamed tool calls, response_format, developer, content parts,
 * images, reasoning_effort, refusal. The fake upstream speaks Anthropic's wire format (fixture
 * shapes cite the references in anthropic.fixture.ts) and each test asserts what it received.
 */
import { describe, expect, test } from "vitest";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import {
  emptyToolBlockEvents,
  message,
  messageEnd,
  messageStart,
  MODEL,
  ping,
  textBlock,
  textBlockEvents,
  thinkingBlock,
  thinkingBlockEvents,
  toolBlockEvents,
  toolUseBlock,
} from "./anthropic.fixture.js";

const usage = { input_tokens: 12, output_tokens: 5 };
const hi = [{ role: "user", content: "Weather in Paris?" }];
const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
} as const;
const clock = { type: "function", function: { name: "get_time" } } as const;
const call = (id: string, name: string, args: string) => ({ id, type: "function", function: { name, arguments: args } });
const sse = (events: ReturnType<typeof toolBlockEvents>, stop: string) => ({
  sse: [messageStart({ input_tokens: 20 }), ping, ...events, ...messageEnd(stop, { output_tokens: 9 })],
  done: false,
});

interface Answer {
  choices: Array<{ message: Record<string, any>; finish_reason: string }>;
}

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: { anthropic: { baseUrl: fakeUrl, apiKey: "sk-ant-api03-tools-test" } },
    models: [{ id: "anthropic/sonnet", pricing: { prompt: "3", completion: "15" }, max_output: 64_000, endpoints: [{ provider: "anthropic", model: MODEL }] }],
    retry: FAST_RETRY,
  }),
  { credits: "1000", body: { model: "anthropic/sonnet", messages: hi } },
);

const client = () => h.gw.client(h.key);
const json = async (res: Response) => (await res.json()) as Answer;

describe("tools and tool_choice", () => {
  test("tools become name, description, input_schema (no parameters: an empty object schema); tool_use answers are tool_calls", async () => {
    h.fake.queue(message([toolUseBlock({ id: "toolu_01A", name: "get_weather", arguments: '{"city":"Paris"}' })], usage, "tool_use"));
    const r = await client().chat.completions.create({ model: "anthropic/sonnet", messages: hi as never, tools: [weather, clock] as never });
    expect(h.sent().tools).toEqual([
      { name: "get_weather", description: "Current weather", input_schema: weather.function.parameters },
      { name: "get_time", input_schema: { type: "object", properties: {} } },
    ]);
    expect(h.sent().tool_choice).toBeUndefined();
    expect(r.choices[0]!.finish_reason).toBe("tool_calls");
    expect(r.choices[0]!.message).toMatchObject({ content: null, refusal: null, tool_calls: [call("toolu_01A", "get_weather", '{"city":"Paris"}')] });
  });

  test.each([
    ["auto", undefined, { type: "auto" }],
    ["none", undefined, { type: "none" }],
    ["required", undefined, { type: "any" }],
    [{ type: "function", function: { name: "get_time" } }, undefined, { type: "tool", name: "get_time" }],
    [undefined, false, { type: "auto", disable_parallel_tool_use: true }],
    ["required", false, { type: "any", disable_parallel_tool_use: true }],
    [{ type: "function", function: { name: "get_weather" } }, false, { type: "tool", name: "get_weather", disable_parallel_tool_use: true }],
    ["auto", true, { type: "auto" }],
  ])("tool_choice %j with parallel_tool_calls %j is sent as %j", async (choice, parallel, expected) => {
    h.fake.queue(message([textBlock("ok")], usage));
    const res = await h.post({ tools: [weather, clock], tool_choice: choice, parallel_tool_calls: parallel });
    expect(res.status).toBe(200);
    expect(h.sent().tool_choice).toEqual(expected);
  });

  test("a tool_choice naming an undeclared tool is a 400 naming tool_choice; nothing goes upstream", async () => {
    const res = await h.post({ tools: [weather], tool_choice: { type: "function", function: { name: "get_time" } } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ code: "unsupported_parameter", param: "tool_choice" });
    expect(h.fake.requests).toHaveLength(0);
  });

  test("two tool_use blocks are two tool_calls, in order", async () => {
    const a = { id: "toolu_01A", name: "get_weather", arguments: '{"city":"Paris"}' };
    const b = { id: "toolu_01B", name: "get_weather", arguments: '{"city":"Lyon"}' };
    h.fake.queue(message([textBlock("Checking both."), toolUseBlock(a), toolUseBlock(b)], usage, "tool_use"));
    const r = await client().chat.completions.create({ model: "anthropic/sonnet", messages: hi as never, tools: [weather] as never });
    expect(r.choices[0]!.message.content).toBe("Checking both.");
    expect(r.choices[0]!.message.tool_calls).toEqual([call(a.id, a.name, a.arguments), call(b.id, b.name, b.arguments)]);
  });
});

describe("tool ids round-trip", () => {
  test("two turns: the id Anthropic issued comes back unchanged in tool_use and tool_result", async () => {
    h.fake.queue(message([toolUseBlock({ id: "toolu_01XFDUDYJgAACzvnptvVoYEL", name: "get_weather", arguments: '{"city":"Paris"}' })], usage, "tool_use"));
    const first = await client().chat.completions.create({ model: "anthropic/sonnet", messages: hi as never, tools: [weather] as never });
    const calls = first.choices[0]!.message.tool_calls!;
    h.fake.queue(message([textBlock("21 °C in Paris.")], usage));
    const messages = [...hi, first.choices[0]!.message, { role: "tool", tool_call_id: calls[0]!.id, content: '{"temp":21}' }];
    const second = await client().chat.completions.create({ model: "anthropic/sonnet", messages: messages as never, tools: [weather] as never });
    expect(second.choices[0]!.message.content).toBe("21 °C in Paris.");
    expect(h.sent().messages.slice(1)).toEqual([
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_01XFDUDYJgAACzvnptvVoYEL", name: "get_weather", input: { city: "Paris" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01XFDUDYJgAACzvnptvVoYEL", content: '{"temp":21}' }] },
    ]);
  });

  test("a foreign id (call_abc|fc_1) is sent in Anthropic's pattern, the same for the call and its result, and decoded on the way back", async () => {
    const foreign = "call_abc|fc_1";
    const messages = [
      ...hi,
      { role: "assistant", content: null, tool_calls: [call(foreign, "get_weather", '{"city":"Paris"}')] },
      { role: "tool", tool_call_id: foreign, content: "sunny" },
    ];
    h.fake.queue(message([textBlock("ok")], usage));
    expect((await h.post({ messages, tools: [weather] })).status).toBe(200);
    const [, assistant, results] = h.sent().messages;
    const sentId = assistant.content[0].id as string;
    expect(sentId).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(sentId).not.toBe(foreign);
    expect(results.content[0].tool_use_id).toBe(sentId);
    // Whatever carries the encoded id back (here the fake answers with it), the client sees its own id.
    h.fake.queue(message([toolUseBlock({ id: sentId, name: "get_weather", arguments: "{}" })], usage, "tool_use"));
    const r = await json(await h.post({ messages, tools: [weather] }));
    expect(r.choices[0]!.message.tool_calls[0].id).toBe(foreign);
    expect(h.sent().messages[1].content[0].id).toBe(sentId); // deterministic
  });
});

describe("streamed tool calls", () => {
  test('the first fragment of each call carries id, type, name and arguments ""; a call without input ends with "{}"', async () => {
    const events = [
      ...toolBlockEvents(0, { id: "toolu_01A", name: "get_weather", arguments: '{"city":"Paris"}' }),
      ...emptyToolBlockEvents(1, "toolu_01B", "get_time"),
    ];
    h.fake.queue(sse(events, "tool_use"));
    const text = await (await h.post({ stream: true, tools: [weather, clock] })).text();
    const fragments = text
      .split("\n\n")
      .filter((l) => l.startsWith("data: {"))
      .flatMap((l) => JSON.parse(l.slice(6)).choices[0]?.delta?.tool_calls ?? []);
    expect(fragments[0]).toEqual({ index: 0, id: "toolu_01A", type: "function", function: { name: "get_weather", arguments: "" } });
    expect(fragments.filter((f: any) => f.index === 1)).toEqual([
      { index: 1, id: "toolu_01B", type: "function", function: { name: "get_time", arguments: "" } },
      { index: 1, function: { arguments: "{}" } },
    ]);
  });

  test("the openai client's stream helper assembles the calls; finish_reason tool_calls", async () => {
    const events = [
      ...textBlockEvents(0, ["Let me ", "check."]),
      ...toolBlockEvents(1, { id: "toolu_01A", name: "get_weather", arguments: '{"city":"Paris"}' }),
      ...emptyToolBlockEvents(2, "toolu_01B", "get_time"),
    ];
    h.fake.queue(sse(events, "tool_use"));
    const stream = client().chat.completions.stream({ model: "anthropic/sonnet", messages: hi as never, tools: [weather, clock] as never });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.content).toBe("Let me check.");
    expect(final.choices[0]!.message.tool_calls).toEqual([call("toolu_01A", "get_weather", '{"city":"Paris"}'), call("toolu_01B", "get_time", "{}")]);
    expect(h.sent()).toMatchObject({ stream: true, tools: [{ name: "get_weather" }, { name: "get_time" }] });
  });
});

describe("response_format as a forced tool", () => {
  const schema = {
    type: "object",
    properties: { city: { type: "string" }, temp: { type: "number" } },
    required: ["city", "temp"],
    additionalProperties: false,
  };
  const format = { type: "json_schema", json_schema: { name: "weather_report", description: "A weather report", schema, strict: true } } as const;
  const forced = { type: "tool", name: "weather_report", disable_parallel_tool_use: true };

  test("json_schema: one tool with the schema, forced; its input is the content, finish stop, no tool_calls", async () => {
    h.fake.queue(message([toolUseBlock({ id: "toolu_01J", name: "weather_report", arguments: '{"city":"Paris","temp":21}' })], usage, "tool_use"));
    const r = await client().chat.completions.parse({ model: "anthropic/sonnet", messages: hi as never, response_format: format as never });
    expect(h.sent().tools).toEqual([{ name: "weather_report", description: "A weather report", input_schema: schema }]);
    expect(h.sent().tool_choice).toEqual(forced);
    expect(r.choices[0]!.finish_reason).toBe("stop");
    expect(r.choices[0]!.message.content).toBe('{"city":"Paris","temp":21}');
    expect(r.choices[0]!.message.parsed).toEqual({ city: "Paris", temp: 21 });
    expect(r.choices[0]!.message.tool_calls ?? []).toEqual([]);
  });

  test("json_schema streamed: the input_json_delta fragments are the content deltas", async () => {
    h.fake.queue(sse(toolBlockEvents(0, { id: "toolu_01J", name: "weather_report", arguments: '{"city":"Paris","temp":21}' }), "tool_use"));
    const stream = client().chat.completions.stream({ model: "anthropic/sonnet", messages: hi as never, response_format: format as never });
    const pieces: string[] = [];
    stream.on("content", (delta) => pieces.push(delta));
    const final = await stream.finalChatCompletion();
    expect(pieces.length).toBeGreaterThan(1);
    expect(final.choices[0]!.message.content).toBe('{"city":"Paris","temp":21}');
    expect(final.choices[0]!.finish_reason).toBe("stop");
    expect(final.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(h.sent()).toMatchObject({ stream: true, tool_choice: forced });
  });

  test("json_object: a tool named json with an object schema; with tool_choice none the request's tools stay declared", async () => {
    h.fake.queue(message([toolUseBlock({ id: "toolu_01J", name: "json", arguments: '{"ok":true}' })], usage, "tool_use"));
    const r = await json(await h.post({ response_format: { type: "json_object" }, tools: [weather], tool_choice: "none" }));
    expect(h.sent().tools).toEqual([
      { name: "get_weather", description: "Current weather", input_schema: weather.function.parameters },
      { name: "json", description: "Respond with a JSON object.", input_schema: { type: "object" } },
    ]);
    expect(h.sent().tool_choice).toEqual({ type: "tool", name: "json", disable_parallel_tool_use: true });
    expect(r.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: '{"ok":true}' } });
  });

  test.each([["auto"], ["required"], [undefined]])(
    "with tools and tool_choice %j it is a 400 naming response_format; nothing goes upstream",
    async (choice) => {
      const res = await h.post({ response_format: format, tools: [weather], tool_choice: choice });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toMatchObject({ type: "invalid_request_error", code: "unsupported_parameter", param: "response_format" });
      expect(h.fake.requests).toHaveLength(0);
    },
  );
});

describe("messages and content", () => {
  test("developer and system messages become the top-level system; text parts become text blocks", async () => {
    h.fake.queue(message([textBlock("ok")], usage));
    const messages = [
      { role: "developer", content: "Answer in French." },
      {
        role: "user",
        content: [
          { type: "text", text: "Bonjour" },
          { type: "text", text: "" },
          { type: "text", text: "ça va ?" },
        ],
      },
    ];
    expect((await h.post({ messages })).status).toBe(200);
    expect(h.sent().system).toBe("Answer in French.");
    expect(h.sent().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Bonjour" },
          { type: "text", text: "ça va ?" },
        ],
      },
    ]);
  });

  test("an https image goes by URL, a data URL as base64 with its media type; tool results may carry images too", async () => {
    h.fake.queue(message([textBlock("A cat.")], usage));
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    const messages = [
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg", detail: "high" } },
        ],
      },
      { role: "assistant", content: null, tool_calls: [call("toolu_01S", "screenshot", "")] },
      { role: "tool", tool_call_id: "toolu_01S", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }] },
    ];
    expect((await h.post({ messages })).status).toBe(200);
    expect(h.sent().messages[0].content[1]).toEqual({ type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } });
    expect(h.sent().messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_01S", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }] },
    ]);
  });

  test("an image type Anthropic does not take is a 400 naming the part", async () => {
    const messages = [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/svg+xml;base64,PHN2Zy8+" } }] }];
    const res = await h.post({ messages });
    expect(((await res.json()) as any).error).toMatchObject({ code: "unsupported_parameter", param: "messages.0.content.0.image_url.url" });
    expect(h.fake.requests).toHaveLength(0);
  });

  test("max_completion_tokens is max_tokens; user is metadata.user_id", async () => {
    h.fake.queue(message([textBlock("ok")], usage));
    await h.post({ max_completion_tokens: 300, user: "user-7f3a" });
    expect(h.sent()).toMatchObject({ max_tokens: 300, metadata: { user_id: "user-7f3a" } });
  });

  test("logprobs: true is a 400 naming logprobs, before any upstream call or charge", async () => {
    const before = { balance: await h.gw.store.balance("default"), rows: (await h.gw.store.usage({ account: "default" })).length };
    const res = await h.post({ logprobs: true });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ type: "invalid_request_error", code: "unsupported_parameter", param: "logprobs" });
    expect(h.fake.requests).toHaveLength(0);
    expect({ balance: await h.gw.store.balance("default"), rows: (await h.gw.store.usage({ account: "default" })).length }).toEqual(before);
  });
});

describe("reasoning_effort and refusals", () => {
  test.each([
    ["minimal", 10_000, 1024],
    ["low", 64_000, 6400],
    ["medium", 10_000, 3000],
    ["high", 10_000, 6000],
  ])("%s with max_tokens %i thinks with budget_tokens %i (a share of max_tokens, at least 1024); max_tokens unchanged", async (effort, max, budget) => {
    h.fake.queue(message([thinkingBlock("Let me think."), textBlock("ok")], usage));
    const r = await json(await h.post({ reasoning_effort: effort, max_completion_tokens: max, temperature: 1 }));
    expect(h.sent()).toMatchObject({ max_tokens: max, thinking: { type: "enabled", budget_tokens: budget } });
    expect(h.sent().temperature).toBeUndefined();
    expect(r.choices[0]!.message.content).toBe("ok");
  });

  test.each([
    [{ temperature: 0.2 }, "temperature"],
    [{ top_p: 0.5 }, "top_p"],
    [{ max_tokens: 1024 }, "reasoning_effort"],
    [{ tools: [weather], tool_choice: "required" }, "tool_choice"],
    [{ response_format: { type: "json_object" } }, "response_format"],
    [
      {
        messages: [
          ...hi,
          { role: "assistant", content: null, tool_calls: [call("toolu_01A", "get_weather", "{}")] },
          { role: "tool", tool_call_id: "toolu_01A", content: "sunny" },
        ],
      },
      "reasoning_effort",
    ],
  ])("with reasoning_effort, %j is a 400 naming %s", async (extra, param) => {
    const res = await h.post({ reasoning_effort: "low", ...extra });
    expect(((await res.json()) as any).error).toMatchObject({ code: "unsupported_parameter", param });
    expect(h.fake.requests).toHaveLength(0);
  });

  test("streamed thinking never reaches the client", async () => {
    h.fake.queue(sse([...thinkingBlockEvents(0, ["Hmm, ", "Paris."]), ...textBlockEvents(1, ["Sunny."])], "end_turn"));
    const text = await (await h.post({ stream: true, reasoning_effort: "low" })).text();
    expect(text).toContain('"content":"Sunny."');
    expect(text).not.toContain("Hmm");
    expect(text).not.toContain("EqQB");
  });

  test("stop_reason refusal is finish_reason content_filter, streamed or not", async () => {
    h.fake.queue(message([textBlock("I can't help with that.")], usage, "refusal"), sse(textBlockEvents(0, ["I can't"]), "refusal"));
    const r = await client().chat.completions.create({ model: "anthropic/sonnet", messages: hi as never });
    expect(r.choices[0]).toMatchObject({ finish_reason: "content_filter", message: { content: "I can't help with that.", refusal: null } });
    const final = await client()
      .chat.completions.stream({ model: "anthropic/sonnet", messages: hi as never })
      .finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("content_filter");
  });
});
