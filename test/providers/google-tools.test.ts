/**
 * The Gemini adapter under `server.compat: openai`: the OpenAI superset (tools, tool_choice,
 * response_format, content parts, developer, reasoning_effort) as the fake Gemini upstream
 * RECEIVES it, and Gemini's answers as OpenAI clients read them. Upstream bodies are the
 * published GenerateContentResponse shapes (google.fixture.ts; function calls as in
 * https://ai.google.dev/gemini-api/docs/function-calling: a whole `functionCall {id?, name,
 * args}` part, finishReason "STOP").
 */
import { describe, expect, test } from "vitest";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { validate } from "../helpers/openai-schema.js";
import { candidate, functionCallPart, response, sse } from "./google.fixture.js";

const KEY = "AIzaSy-google-tools-test-4b2";
const pricing = { prompt: "1", completion: "2" };
const model = (id: string, upstream: string) => ({ id, pricing, endpoints: [{ provider: "gemini", model: upstream }] });
const usage = { promptTokenCount: 20, candidatesTokenCount: 6 };
const ok = (text = "ok", finish = "STOP") => ({ json: response([candidate([{ text }], finish)], usage) });
const call = (name: string, args: unknown, id?: string) => functionCallPart({ id, name, arguments: JSON.stringify(args) });
const calls = (...parts: unknown[]) => ({ json: response([candidate(parts, "STOP")], usage) });
const user = (content: unknown) => [{ role: "user", content }];

/** What @openai/agents sends (agents-core strictToolSchema): all required, optional as anyOf-null, closed objects. */
const agentsSchema = {
  type: "object",
  properties: {
    city: { type: "string", description: "City name" },
    unit: { anyOf: [{ type: "string", enum: ["c", "f"] }, { type: "null" }] },
    days: { anyOf: [{ type: "integer", minimum: 1, maximum: 7 }, { type: "null" }] },
  },
  required: ["city", "unit", "days"],
  additionalProperties: false,
};
/** zod-to-json-schema output: a $schema key, const for literals, nested closed objects. */
const zodSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    kind: { type: "string", const: "search" },
    filters: {
      type: "array",
      items: {
        type: "object",
        properties: { field: { type: "string" }, value: { anyOf: [{ type: "string" }, { type: "null" }] } },
        required: ["field", "value"],
        additionalProperties: false,
      },
    },
  },
  required: ["kind", "filters"],
  additionalProperties: false,
};
const zodSent = { ...zodSchema, properties: { ...zodSchema.properties, kind: { type: "string", enum: ["search"] } } };
delete (zodSent as Record<string, unknown>).$schema;

const weather = { type: "function", function: { name: "get_weather", description: "Weather for a city", parameters: agentsSchema, strict: true } };
const search = { type: "function", function: { name: "search_docs", parameters: zodSchema } };
const clock = { type: "function", function: { name: "get_time" } };

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: { gemini: { plugin: "google", baseUrl: fakeUrl, apiKey: KEY } },
    models: [
      model("google/flash", "gemini-2.5-flash"),
      model("google/pro-25", "gemini-2.5-pro"),
      model("google/flash-2.0", "gemini-2.0-flash"),
      model("google/pro-3", "gemini-3-pro-preview"),
      model("google/flash-3", "gemini-3-flash-preview"),
    ],
    retry: FAST_RETRY,
  }),
  { body: { model: "google/flash" } },
);

const client = () => h.gw.client(h.key);
const chat = (body: Record<string, unknown>) => client().chat.completions.create({ model: "google/flash", ...body } as never) as Promise<any>;

async function rejected(body: Record<string, unknown>, param: string) {
  const res = await h.post(body);
  const json = (await res.json()) as { error: { code: string; param: string } };
  expect([res.status, json.error.code, json.error.param]).toEqual([400, "unsupported_parameter", param]);
  expect(validate("error", json)).toEqual([]);
  expect(h.fake.requests).toHaveLength(0);
}

describe("tools and tool_choice", () => {
  test("definitions go out as parametersJsonSchema: agents' strict schema as is, zod's without $schema and with const as enum", async () => {
    h.fake.queue(ok());
    await chat({ messages: user("Weather?"), tools: [weather, search, clock] });
    const body = h.sent();
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: "get_weather", description: "Weather for a city", parametersJsonSchema: agentsSchema },
          { name: "search_docs", parametersJsonSchema: zodSent },
          { name: "get_time" },
        ],
      },
    ]);
    expect(body.toolConfig).toBeUndefined();
  });

  test("tool_choice: auto -> AUTO, none -> NONE, required -> ANY, named -> ANY with allowedFunctionNames", async () => {
    const choices: Array<[unknown, unknown]> = [
      ["auto", { mode: "AUTO" }],
      ["none", { mode: "NONE" }],
      ["required", { mode: "ANY" }],
      [
        { type: "function", function: { name: "search_docs" } },
        { mode: "ANY", allowedFunctionNames: ["search_docs"] },
      ],
    ];
    for (const [choice, expected] of choices) {
      h.fake.queue(ok());
      await chat({ messages: user("x"), tools: [weather, search], tool_choice: choice });
      expect(h.sent().toolConfig).toEqual({ functionCallingConfig: expected });
    }
  });

  test("a named tool_choice that is not among the tools is a 400 and nothing goes upstream", async () => {
    const res = await h.post({ messages: user("x"), tools: [weather], tool_choice: { type: "function", function: { name: "nope" } } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ param: "tool_choice", type: "invalid_request_error" });
    expect(h.fake.requests).toHaveLength(0);
  });

  test("two turns: Gemini's call id reaches the client and comes back unchanged in functionCall and functionResponse", async () => {
    h.fake.queue(calls(call("get_weather", { city: "Paris", unit: null, days: null }, "fc-7f3a91")), ok("18 degrees"));
    const messages: any[] = user("Weather in Paris?");
    const first = await chat({ messages, tools: [weather] });
    const tc = first.choices[0].message.tool_calls;
    expect(first.choices[0].finish_reason).toBe("tool_calls");
    expect(tc).toEqual([{ id: "fc-7f3a91", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris","unit":null,"days":null}' } }]);
    messages.push(first.choices[0].message, { role: "tool", tool_call_id: "fc-7f3a91", content: '{"temp":18}' });
    const second = await chat({ messages, tools: [weather] });
    expect(second.choices[0].message.content).toBe("18 degrees");
    expect(h.sent().contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris?" }] },
      { role: "model", parts: [{ functionCall: { id: "fc-7f3a91", name: "get_weather", args: { city: "Paris", unit: null, days: null } } }] },
      { role: "user", parts: [{ functionResponse: { id: "fc-7f3a91", name: "get_weather", response: { temp: 18 } } }] },
    ]);
  });

  test("Gemini 3 without a call id: the generated id round-trips and the replayed call carries Google's sentinel signature", async () => {
    h.fake.queue({ json: response([candidate([{ ...call("get_time", {}), thoughtSignature: "CiQBVKhcXw8s" }], "STOP")], usage) }, ok("noon"));
    const messages: any[] = user("Time?");
    const first = await chat({ model: "google/pro-3", messages, tools: [clock] });
    const id = first.choices[0].message.tool_calls[0].id;
    expect(id).toMatch(/^call_\w+$/);
    expect(first.choices[0].message.tool_calls[0].function.arguments).toBe("{}");
    messages.push(first.choices[0].message, { role: "tool", tool_call_id: id, content: "12:00" });
    await chat({ model: "google/pro-3", messages, tools: [clock] });
    expect(h.sent().contents.slice(1)).toEqual([
      { role: "model", parts: [{ functionCall: { id, name: "get_time", args: {} }, thoughtSignature: "skip_thought_signature_validator" }] },
      { role: "user", parts: [{ functionResponse: { id, name: "get_time", response: { content: "12:00" } } }] },
    ]);
  });

  test("two parallel calls in one turn, then both results in ONE user content, in order", async () => {
    h.fake.queue(calls(call("get_weather", { city: "Oslo", unit: "c", days: 1 }, "fc-a"), call("get_time", {}, "fc-b")), ok("Done"));
    const messages: any[] = user("Weather and time in Oslo?");
    const first = await chat({ messages, tools: [weather, clock] });
    const [a, b] = first.choices[0].message.tool_calls;
    expect([a.id, a.function.name, b.id, b.function.name]).toEqual(["fc-a", "get_weather", "fc-b", "get_time"]);
    messages.push(first.choices[0].message, { role: "tool", tool_call_id: b.id, content: "09:00" }, { role: "tool", tool_call_id: a.id, content: "cold" });
    await chat({ messages, tools: [weather, clock] });
    const contents = h.sent().contents;
    expect(contents).toHaveLength(3);
    expect(contents[2]).toEqual({
      role: "user",
      parts: [
        { functionResponse: { id: "fc-b", name: "get_time", response: { content: "09:00" } } },
        { functionResponse: { id: "fc-a", name: "get_weather", response: { content: "cold" } } },
      ],
    });
  });

  test("a streamed tool call is assembled by the openai client's stream helper; each call's first fragment has id, type and name", async () => {
    h.fake.queue(
      sse([
        response([candidate([{ text: "Checking." }])], { promptTokenCount: 20, candidatesTokenCount: 2 }),
        response([candidate([call("get_weather", { city: "Rome", unit: null, days: 2 }, "fc-s1"), call("get_time", {})], "STOP")], usage),
      ]),
    );
    const stream = client().chat.completions.stream({ model: "google/flash", messages: user("Rome?") as never, tools: [weather, clock] as never });
    const fragments: any[] = [];
    stream.on("chunk", (c) => fragments.push(...(c.choices[0]?.delta?.tool_calls ?? [])));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.content).toBe("Checking.");
    const assembled = final.choices[0]!.message.tool_calls as any[];
    expect(assembled.map((t) => [t.id, t.type, t.function.name, t.function.arguments])).toEqual([
      ["fc-s1", "function", "get_weather", '{"city":"Rome","unit":null,"days":2}'],
      [assembled[1].id, "function", "get_time", "{}"],
    ]);
    expect(assembled[1].id).toMatch(/^call_\w+$/);
    for (const index of [0, 1])
      expect(fragments.find((f) => f.index === index)).toMatchObject({
        id: assembled[index].id,
        type: "function",
        function: { name: assembled[index].function.name },
      });
    expect(h.fake.requests[0]!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  });

  test("parallel_tool_calls: false has no Gemini switch: 400 naming it, nothing upstream", async () => {
    await rejected({ messages: user("x"), tools: [weather], parallel_tool_calls: false }, "parallel_tool_calls");
  });
});

describe("messages and content parts", () => {
  test("developer and system messages become systemInstruction; text parts stay separate parts", async () => {
    h.fake.queue(ok());
    await chat({
      messages: [
        { role: "system", content: "Be terse." },
        {
          role: "developer",
          content: [
            { type: "text", text: "Answer in " },
            { type: "text", text: "French." },
          ],
        },
        {
          role: "user",
          content: [
            { type: "text", text: "Bonjour" },
            { type: "text", text: "" },
            { type: "text", text: "ça va ?" },
          ],
        },
      ],
    });
    const body = h.sent();
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Be terse." }, { text: "Answer in French." }] });
    expect(body.contents).toEqual([{ role: "user", parts: [{ text: "Bonjour" }, { text: "ça va ?" }] }]);
  });

  test("a data: URL image is inlineData with its MIME type; detail has no Gemini equivalent", async () => {
    h.fake.queue(ok("a red dot"));
    const data = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    const r = await chat({
      messages: user([
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${data}`, detail: "high" } },
      ]),
    });
    expect(r.choices[0].message.content).toBe("a red dot");
    expect(h.sent().contents).toEqual([{ role: "user", parts: [{ text: "What is this?" }, { inlineData: { mimeType: "image/png", data } }] }]);
  });

  test("an https image URL is a 400 naming that url (no download), nothing upstream", async () => {
    await rejected(
      {
        messages: user([
          { type: "text", text: "x" },
          { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
        ]),
      },
      "messages.0.content.1.image_url.url",
    );
  });

  test("an image in a developer message is a 400: systemInstruction is text only", async () => {
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };
    await rejected({ messages: [{ role: "developer", content: [image] }, ...user("x")] }, "messages.0.content");
  });

  test("logprobs: true is a 400 naming logprobs, nothing upstream", async () => {
    await rejected({ messages: user("x"), logprobs: true }, "logprobs");
  });
});

describe("generationConfig", () => {
  test("response_format json_schema -> responseMimeType + responseJsonSchema; json_object -> the MIME type alone; text -> nothing", async () => {
    h.fake.queue(ok('{"kind":"search","filters":[]}'), ok("{}"), ok());
    const r = await chat({ messages: user("x"), response_format: { type: "json_schema", json_schema: { name: "query", schema: zodSchema, strict: true } } });
    expect(r.choices[0].message.content).toBe('{"kind":"search","filters":[]}');
    expect(h.sent().generationConfig).toEqual({ responseMimeType: "application/json", responseJsonSchema: zodSent });
    await chat({ messages: user("x"), response_format: { type: "json_object" } });
    expect(h.sent().generationConfig).toEqual({ responseMimeType: "application/json" });
    await chat({ messages: user("x"), response_format: { type: "text" } });
    expect(h.sent().generationConfig).toBeUndefined();
  });

  test("max_completion_tokens is maxOutputTokens", async () => {
    h.fake.queue(ok());
    await chat({ messages: user("x"), max_completion_tokens: 321 });
    expect(h.sent().generationConfig).toEqual({ maxOutputTokens: 321 });
  });

  test("reasoning_effort: thinkingBudget on 2.5, thinkingLevel on 3, a 400 on 2.0", async () => {
    const table: Array<[string, string, unknown]> = [
      ["google/flash", "low", { thinkingBudget: 6554 }],
      ["google/flash", "high", { thinkingBudget: 24576 }],
      ["google/pro-25", "minimal", { thinkingBudget: 1311 }],
      ["google/pro-25", "high", { thinkingBudget: 32768 }],
      ["google/pro-3", "minimal", { thinkingLevel: "low" }],
      ["google/pro-3", "high", { thinkingLevel: "high" }],
      ["google/flash-3", "minimal", { thinkingLevel: "minimal" }],
      ["google/flash-3", "medium", { thinkingLevel: "medium" }],
    ];
    for (const [id, effort, expected] of table) {
      h.fake.queue(ok());
      await chat({ model: id, messages: user("x"), reasoning_effort: effort });
      expect([id, effort, h.sent().generationConfig.thinkingConfig]).toEqual([id, effort, expected]);
    }
    h.fake.requests.length = 0;
    await rejected({ model: "google/flash-2.0", messages: user("x"), reasoning_effort: "low" }, "reasoning_effort");
  });
});

describe("filters", () => {
  test("SAFETY, RECITATION and a blocked prompt finish as content_filter, streamed or not; OTHER stays stop", async () => {
    const blocked = {
      promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
      usageMetadata: { promptTokenCount: 6, totalTokenCount: 6 },
      modelVersion: "gemini-2.5-flash",
    };
    h.fake.queue(ok("par", "SAFETY"), ok("tial", "RECITATION"), ok("x", "OTHER"), { json: blocked });
    for (const expected of ["content_filter", "content_filter", "stop", "content_filter"]) {
      const res = await h.post({ messages: user("x") });
      const json = (await res.json()) as any;
      expect(validate("chat.completion", json)).toEqual([]);
      expect(json.choices[0].finish_reason).toBe(expected);
    }
    h.fake.queue(sse([response([candidate([{ text: "Once" }])], usage), response([candidate([], "SAFETY")], usage)]), sse([blocked]));
    for (const expected of ["content_filter", "content_filter"]) {
      let finish: string | null = null;
      for await (const c of await chat({ messages: user("x"), stream: true })) finish = c.choices[0]?.finish_reason ?? finish;
      expect(finish).toBe(expected);
    }
  });
});
