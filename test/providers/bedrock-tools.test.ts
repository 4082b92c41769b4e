/**
 * Bedrock Converse under `server.compat: openai` (docs/openai-compat.md): tools, tool_choice, ids,
 * structured output as a forced `json` tool, developer, content parts, images, reasoning,
 * guardrails. The fake speaks Converse and the tests assert what it received.
 * Wire references: Converse (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html),
 * ToolConfiguration / ToolChoice / ContentBlock / ImageBlock, ConverseStreamOutput.
 */
import { describe, expect, test } from "vitest";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import {
  blockStop,
  converse,
  eventStream,
  messageStart,
  messageStop,
  metadata,
  reasoningDelta,
  SECRET,
  textDelta,
  toolFrames,
  toolInput,
  toolStart,
} from "./bedrock.fixture.js";

const CLAUDE = "anthropic.claude-sonnet-4-20250514-v1:0";
const LLAMA = "meta.llama3-1-70b-instruct-v1:0";
const MISTRAL = "mistral.mistral-large-2407-v1:0";
const usage = { inputTokens: 20, outputTokens: 9 };
const price = { prompt: "1", completion: "5" };
const model = (id: string, upstream: string) => ({ id, pricing: price, max_output: 8192, endpoints: [{ provider: "bedrock", model: upstream }] });

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: { bedrock: { baseUrl: fakeUrl, apiKey: `AKIAIOSFODNN7EXAMPLE:${SECRET}`, region: "us-west-2" } },
    models: [model("bedrock/claude", CLAUDE), model("bedrock/llama", LLAMA), model("bedrock/mistral", MISTRAL)],
    retry: FAST_RETRY,
  }),
  { credits: "100", body: { model: "bedrock/claude", messages: [{ role: "user", content: "Hi" }] } },
);
const ask = [{ role: "user", content: "Weather in Oslo?" }];
const client = () => h.gw.client(h.key);
const chat = (body: Record<string, unknown>) => client().chat.completions.create({ model: "bedrock/claude", messages: ask, ...body } as never) as Promise<any>;

const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const clock = { type: "function", function: { name: "get_time", description: "" } };
const toolUse = (toolUseId: string, name: string, input: unknown) => ({ toolUse: { toolUseId, name, input } });

/** An error as OpenAI shapes it (with `param`), and nothing sent upstream. */
async function refused(res: Response, param: string): Promise<string> {
  expect(res.status).toBe(400);
  const { error } = (await res.json()) as { error: Record<string, string> };
  expect(error).toMatchObject({ type: "invalid_request_error", code: "unsupported_parameter", param });
  expect(h.fake.requests).toHaveLength(0);
  return error.message!;
}

describe("tools", () => {
  test("a tool definition: toolSpec with inputSchema.json; an empty description and absent parameters as Converse needs them", async () => {
    h.fake.queue(converse([toolUse("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "get_weather", { city: "Oslo" })], "tool_use", usage));
    const r = await chat({ messages: ask, tools: [weather, clock], tool_choice: "auto" });
    expect(h.sent().toolConfig).toEqual({
      tools: [
        { toolSpec: { name: "get_weather", description: "Current weather", inputSchema: { json: weather.function.parameters } } },
        { toolSpec: { name: "get_time", inputSchema: { json: { type: "object", properties: {} } } } },
      ],
      toolChoice: { auto: {} },
    });
    expect(r.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        content: null,
        tool_calls: [{ id: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
      },
    });
  });

  test.each([
    ["named", { type: "function", function: { name: "get_weather" } }, { tool: { name: "get_weather" } }],
    ["required", "required", { any: {} }],
  ])("forced tool_choice (%s)", async (_, choice, wire) => {
    h.fake.queue(converse([toolUse("tooluse_1", "get_weather", { city: "Oslo" })], "tool_use", usage));
    await chat({ messages: ask, tools: [weather, clock], tool_choice: choice });
    expect(h.sent().toolConfig.toolChoice).toEqual(wire);
    expect(h.sent().toolConfig.tools).toHaveLength(2);
  });

  test("tool_choice none: no tools declared; with tool history it cannot be honoured (400)", async () => {
    h.fake.queue(converse([{ text: "Sunny." }], "end_turn", usage));
    await chat({ messages: ask, tools: [weather], tool_choice: "none" });
    expect(h.sent().toolConfig).toBeUndefined();
    h.fake.requests.length = 0;
    const history = [
      ...ask,
      { role: "assistant", tool_calls: [{ id: "t1", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "t1", content: "sunny" },
    ];
    await refused(await h.post({ messages: history, tools: [weather], tool_choice: "none" }), "tool_choice");
  });

  test("a two-turn round trip keeps the ids: Bedrock's own pass through, others are fitted to Converse both ways", async () => {
    const id = "tooluse_bpe71yCfRu2b5i-nKGDr5g";
    h.fake.queue(converse([{ text: "Checking." }, toolUse(id, "get_weather", { city: "Oslo" })], "tool_use", usage));
    const first = await chat({ messages: ask, tools: [weather] });
    const call = first.choices[0].message.tool_calls[0];
    expect(call.id).toBe(id);
    // A second call whose id came from another provider: dots and a pipe do not fit [a-zA-Z0-9_-]+.
    const foreign = { id: "call_x|fc.42", type: "function", function: { name: "get_time", arguments: "" } };
    h.fake.queue(converse([{ text: "12°C at 12:00." }], "end_turn", usage));
    const history = [
      ...ask,
      { role: "assistant", content: "Checking.", tool_calls: [call, foreign] },
      { role: "tool", tool_call_id: id, content: '{"temp":12}' },
      { role: "tool", tool_call_id: foreign.id, content: "12:00" },
    ];
    await chat({ messages: history, tools: [weather] });
    const [, assistant, results] = h.sent().messages;
    const sentId = assistant.content[2].toolUse.toolUseId;
    expect(assistant.content[1]).toEqual(toolUse(id, "get_weather", { city: "Oslo" }));
    expect(sentId).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(results.content.map((b: any) => b.toolResult.toolUseId)).toEqual([id, sentId]);
    // get_time is in the history but not in tools: still declared, or Converse rejects the blocks.
    expect(h.sent().toolConfig.tools.map((t: any) => t.toolSpec.name)).toEqual(["get_weather", "get_time"]);
    // Should Bedrock ever name the rewritten id, the client gets its own id back.
    h.fake.queue(converse([toolUse(sentId, "get_time", {})], "tool_use", usage));
    expect((await chat({ messages: history, tools: [weather] })).choices[0].message.tool_calls[0].id).toBe(foreign.id);
  });

  test("Mistral models get nine-letter ids, the same for a call and its result", async () => {
    h.fake.queue(converse([{ text: "ok" }], "end_turn", usage));
    const history = [
      ...ask,
      {
        role: "assistant",
        tool_calls: [{ id: "tooluse_bpe71yCfRu2b5i-nKGDr5g", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
      },
      { role: "tool", tool_call_id: "tooluse_bpe71yCfRu2b5i-nKGDr5g", content: "12" },
    ];
    await chat({ model: "bedrock/mistral", messages: history, tools: [weather] });
    const [, assistant, result] = h.sent().messages;
    expect(assistant.content[0].toolUse.toolUseId).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(result.content[0].toolResult.toolUseId).toBe(assistant.content[0].toolUse.toolUseId);
  });

  test("parallel tool calls come back in order; parallel_tool_calls: false has no Converse flag (400)", async () => {
    h.fake.queue(converse([toolUse("tooluse_a", "get_weather", { city: "Oslo" }), toolUse("tooluse_b", "get_weather", { city: "Rome" })], "tool_use", usage));
    const r = await chat({ messages: ask, tools: [weather] });
    expect(r.choices[0].message.tool_calls.map((c: any) => [c.id, c.function.arguments])).toEqual([
      ["tooluse_a", '{"city":"Oslo"}'],
      ["tooluse_b", '{"city":"Rome"}'],
    ]);
    h.fake.requests.length = 0;
    await refused(await h.post({ messages: ask, tools: [weather], parallel_tool_calls: false }), "parallel_tool_calls");
  });

  test("a streamed tool call, assembled by the openai client's stream helper; a tool without input ends as {}", async () => {
    h.fake.queue(
      eventStream([
        messageStart(),
        textDelta("Let me check.", 0),
        blockStop(0),
        ...toolFrames({ id: "tooluse_s1", name: "get_weather", arguments: '{"city":"Oslo"}' }, 1),
        toolStart("tooluse_s2", "get_time", 2),
        blockStop(2),
        messageStop("tool_use"),
        metadata(usage),
      ]),
    );
    const stream = client().chat.completions.stream({ model: "bedrock/claude", messages: ask as never, tools: [weather, clock] as never });
    const done = await stream.finalChatCompletion();
    expect(done.choices[0]!.finish_reason).toBe("tool_calls");
    expect(done.choices[0]!.message.content).toBe("Let me check.");
    expect(done.choices[0]!.message.tool_calls).toEqual([
      { id: "tooluse_s1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
      { id: "tooluse_s2", type: "function", function: { name: "get_time", arguments: "{}" } },
    ]);
    expect(h.fake.requests[0]!.path).toMatch(/\/converse-stream$/);
  });
});

describe("response_format as a forced json tool", () => {
  const schema = {
    type: "object",
    properties: { city: { type: "string" }, temp: { type: "number" } },
    required: ["city", "temp"],
    additionalProperties: false,
  };
  const format = { type: "json_schema", json_schema: { name: "report", schema, strict: true } };
  const jsonTool = {
    tools: [{ toolSpec: { name: "json", description: "Respond with a JSON object.", inputSchema: { json: schema } } }],
    toolChoice: { tool: { name: "json" } },
  };

  test("json_schema, not streamed: the schema becomes the forced tool; its input is the answer, finish stop", async () => {
    h.fake.queue(converse([toolUse("tooluse_j", "json", { city: "Oslo", temp: 12 })], "tool_use", usage));
    const r = await client().chat.completions.parse({ model: "bedrock/claude", messages: ask as never, response_format: format as never });
    expect(h.sent().toolConfig).toEqual(jsonTool);
    expect(r.choices[0]!).toMatchObject({ finish_reason: "stop", message: { content: '{"city":"Oslo","temp":12}', parsed: { city: "Oslo", temp: 12 } } });
    expect(r.choices[0]!.message.tool_calls ?? []).toEqual([]);
  });

  test("json_schema, streamed: the tool input streams as content", async () => {
    h.fake.queue(
      eventStream([
        messageStart(),
        toolStart("tooluse_j", "json", 0),
        toolInput('{"city":"Os', 0),
        toolInput('lo","temp":12}', 0),
        blockStop(0),
        messageStop("tool_use"),
        metadata(usage),
      ]),
    );
    const stream = client().chat.completions.stream({ model: "bedrock/claude", messages: ask as never, response_format: format as never });
    const pieces: string[] = [];
    stream.on("content.delta", ({ delta }) => pieces.push(delta));
    const done = await stream.finalChatCompletion();
    expect(pieces).toEqual(['{"city":"Os', 'lo","temp":12}']);
    expect(done.choices[0]!).toMatchObject({ finish_reason: "stop", message: { content: '{"city":"Oslo","temp":12}' } });
    expect(h.sent().toolConfig).toEqual(jsonTool);
  });

  test("json_object asks for any object; with the request's own tools it is refused (one toolChoice cannot force both)", async () => {
    h.fake.queue(converse([toolUse("tooluse_j", "json", { ok: true })], "tool_use", usage));
    const r = await chat({ messages: [{ role: "user", content: "Answer in JSON." }], response_format: { type: "json_object" } });
    expect(r.choices[0].message.content).toBe('{"ok":true}');
    expect(h.sent().toolConfig.tools[0].toolSpec.inputSchema).toEqual({ json: { type: "object" } });
    h.fake.requests.length = 0;
    await refused(await h.post({ messages: ask, tools: [weather], response_format: format }), "response_format");
  });
});

describe("messages and content", () => {
  test("developer and system become system blocks in order; text parts become text blocks", async () => {
    h.fake.queue(converse([{ text: "ok" }], "end_turn", usage));
    await chat({
      messages: [
        { role: "system", content: "Be terse." },
        { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
        {
          role: "user",
          content: [
            { type: "text", text: "Hello" },
            { type: "text", text: "" },
            { type: "text", text: "there" },
          ],
        },
      ],
      max_completion_tokens: 300,
    });
    expect(h.sent()).toEqual({
      system: [{ text: "Be terse." }, { text: "Answer in French." }],
      messages: [{ role: "user", content: [{ text: "Hello" }, { text: "there" }] }],
      inferenceConfig: { maxTokens: 300 },
    });
  });

  test("an image data URL becomes an ImageBlock with base64 bytes and a short format name", async () => {
    h.fake.queue(converse([{ text: "A red dot." }], "end_turn", usage));
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    await chat({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${png}`, detail: "low" } },
          ],
        },
      ],
    });
    expect(h.sent().messages).toEqual([{ role: "user", content: [{ text: "What is this?" }, { image: { format: "png", source: { bytes: png } } }] }]);
  });

  test.each([
    ["an https image (no download)", "https://example.com/cat.png"],
    ["an image format Converse lacks", "data:image/bmp;base64,Qk0="],
  ])("%s: 400 naming the url, nothing upstream", async (_, url) => {
    const content = [
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url } },
    ];
    await refused(await h.post({ messages: [{ role: "user", content }] }), "messages.0.content.1.image_url.url");
  });

  test("logprobs: 400 naming it, nothing upstream", async () => {
    await refused(await h.post({ logprobs: true }), "logprobs");
  });
});

describe("answers", () => {
  test("guardrail_intervened and content_filtered -> content_filter (response and stream)", async () => {
    h.fake.queue(converse([{ text: "Sorry, I can't help with that." }], "guardrail_intervened", usage));
    expect((await chat({})).choices[0].finish_reason).toBe("content_filter");
    h.fake.queue(eventStream([messageStart(), textDelta("Sorry"), blockStop(), messageStop("content_filtered"), metadata(usage)]));
    const done = await client()
      .chat.completions.stream({ model: "bedrock/claude", messages: ask as never })
      .finalChatCompletion();
    expect(done.choices[0]!.finish_reason).toBe("content_filter");
  });

  test("reasoning_effort on Claude: thinking with a budget inside the output limit; reasoning never reaches content", async () => {
    const reasoning = { reasoningContent: { reasoningText: { text: "The user greets me.", signature: "EqoBCkgIARABGAIiQL" } } };
    h.fake.queue(converse([reasoning, { text: "Hello!" }], "end_turn", usage));
    const r = await chat({ reasoning_effort: "medium", max_completion_tokens: 10000 });
    expect(h.sent().additionalModelRequestFields).toEqual({ thinking: { type: "enabled", budget_tokens: 3000 } });
    expect(h.sent().inferenceConfig).toEqual({ maxTokens: 10000 });
    expect(r.choices[0].message.content).toBe("Hello!");
    h.fake.queue(
      eventStream([
        messageStart(),
        reasoningDelta({ text: "Thinking…" }, 0),
        reasoningDelta({ signature: "EqoB" }, 0),
        blockStop(0),
        textDelta("Hello!", 1),
        blockStop(1),
        messageStop("end_turn"),
        metadata(usage),
      ]),
    );
    const done = await client()
      .chat.completions.stream({ model: "bedrock/claude", messages: ask as never, reasoning_effort: "low" })
      .finalChatCompletion();
    expect(done.choices[0]!.message.content).toBe("Hello!");
    // No max_completion_tokens: the catalog's output limit (8192) bounds thinking and answer together.
    expect(h.sent()).toMatchObject({
      additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } },
      inferenceConfig: { maxTokens: 8192 },
    });
  });

  test.each([
    ["a model without a mapping", { model: "bedrock/llama", reasoning_effort: "high" }, "reasoning_effort"],
    ["temperature beside thinking", { reasoning_effort: "high", temperature: 0.2 }, "temperature"],
    ["a forced tool beside thinking", { reasoning_effort: "high", tools: [weather], tool_choice: "required" }, "tool_choice"],
    [
      "a tool loop to continue (its signed thinking blocks are lost)",
      {
        reasoning_effort: "low",
        tools: [weather],
        messages: [
          ...ask,
          { role: "assistant", tool_calls: [{ id: "t1", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "t1", content: "12" },
        ],
      },
      "reasoning_effort",
    ],
    ["an output limit too small for a thinking budget", { reasoning_effort: "low", max_completion_tokens: 1000 }, "reasoning_effort"],
  ])("reasoning_effort with %s: 400, nothing upstream", async (_, extra, param) => {
    await refused(await h.post(extra), param);
  });
});
