/**
 * POST /v1/messages with the official Anthropic SDK (`@anthropic-ai/sdk` 1.14), unchanged but
 * for baseURL and apiKey (so it sends x-api-key and its own anthropic-version): `messages.create`,
 * `messages.stream` (its accumulator assembles text and tool input: `finalMessage()`) and
 * `messages.countTokens`, on the native path (an Anthropic-format fake) and the translated one
 * (an OpenAI-format fake behind a glob alias). Stream fidelity: for each path the SDK's
 * accumulated stream equals the non-streamed answer, ids aside.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Reply, type SseEvent } from "../helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "../helpers/gateway.js";
import { CLAUDE, CLAUDE_UPSTREAM, messagesConfig, openaiToolCall, openaiToolStream } from "../helpers/messages-wire.js";
import { completion, stream as openaiStream } from "../helpers/openai-wire.js";
import { rows } from "../helpers/rows.js";

let anth: FakeUpstream;
let oai: FakeUpstream;
let gw: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  anth = await startFakeUpstream();
  oai = await startFakeUpstream();
  gw = await startGateway(messagesConfig(anth.url, oai.url));
  const key = await gw.createKey();
  await gw.addCredits("100");
  client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await anth?.close();
  await oai?.close();
});
beforeEach(() => {
  anth.requests.length = 0;
  oai.requests.length = 0;
});

const tools: Anthropic.Tool[] = [
  {
    name: "get_weather",
    description: "The weather in a city.",
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];
const ask: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
const CALL = { id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { city: "Paris" } };
const wireUsage = { input_tokens: 25, cache_creation_input_tokens: 100, cache_read_input_tokens: 400, output_tokens: 31 };

/** One Anthropic answer as the provider sends it, JSON and streamed, from the same content. */
function anthropicAnswer(content: Array<Record<string, unknown>>, stop: string): { json: Reply; sse: Reply } {
  const head = { id: "msg_01XFDUDYJgAACzvnptvVoYEL", type: "message", role: "assistant", model: CLAUDE_UPSTREAM, stop_sequence: null };
  const ev = (type: string, data: Record<string, unknown>): SseEvent => ({ event: type, data: { type, ...data } });
  const blocks = content.flatMap((b, index) => {
    const start = b.type === "text" ? { type: "text", text: "" } : { ...b, input: {} };
    const delta = b.type === "text" ? { type: "text_delta", text: b.text } : { type: "input_json_delta", partial_json: JSON.stringify(b.input) };
    return [ev("content_block_start", { index, content_block: start }), ev("content_block_delta", { index, delta }), ev("content_block_stop", { index })];
  });
  const { output_tokens, ...prompt } = wireUsage;
  return {
    json: { json: { ...head, content, stop_reason: stop, usage: wireUsage } },
    sse: {
      sse: [
        ev("message_start", { message: { ...head, content: [], stop_reason: null, usage: { ...prompt, output_tokens: 1 } } }),
        ev("ping", {}),
        ...blocks,
        ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens } }),
        ev("message_stop", {}),
      ],
      done: false,
    },
  };
}

/** `parsed_output` is the stream helper's own addition (its structured-output parser), not the wire's. */
const withoutId = (m: Anthropic.Message) => ({ ...m, id: undefined, parsed_output: undefined });

describe("native (Anthropic upstream)", () => {
  test("create and stream: the same message (ids aside); tool input assembled; x-api-key accepted", async () => {
    const a = anthropicAnswer(
      [
        { type: "text", text: "Let me check." },
        { type: "tool_use", ...CALL },
      ],
      "tool_use",
    );
    anth.queue(a.json, a.sse);
    const created = await client.messages.create({ model: CLAUDE, max_tokens: 1024, messages: ask, tools });
    const streamed = await client.messages.stream({ model: CLAUDE, max_tokens: 1024, messages: ask, tools }).finalMessage();
    expect(created.content).toEqual([
      { type: "text", text: "Let me check." },
      { type: "tool_use", ...CALL },
    ]);
    expect(created.usage).toMatchObject(wireUsage);
    expect(withoutId(streamed)).toEqual(withoutId(created));
    expect(created.id).toMatch(/^msg_/);
    expect(anth.requests.map((r) => r.body.model)).toEqual([CLAUDE_UPSTREAM, CLAUDE_UPSTREAM]);
    // The SDK's own version, forwarded as it sent it (docs/messages.md).
    expect(anth.requests[0]!.headers["anthropic-version"]).toBe("2026-10-21");
  });

  test("the tool result reaches the provider as the SDK sent it", async () => {
    const a = anthropicAnswer([{ type: "text", text: "18C and sunny." }], "end_turn");
    anth.queue(a.json);
    const turns: Anthropic.MessageParam[] = [
      ...ask,
      { role: "assistant", content: [{ type: "tool_use", ...CALL }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: CALL.id, content: "18C, sunny" }] },
    ];
    const answer = await client.messages.create({ model: CLAUDE, max_tokens: 1024, messages: turns, tools });
    expect(answer.content).toEqual([{ type: "text", text: "18C and sunny." }]);
    expect(anth.requests[0]!.body.messages).toEqual(turns);
  });

  test("countTokens is Anthropic's count", async () => {
    anth.queue({ json: { input_tokens: 77 } });
    expect(await client.messages.countTokens({ model: CLAUDE, messages: ask, tools })).toEqual({ input_tokens: 77 });
    expect(anth.requests[0]!.path).toBe("/v1/messages/count_tokens");
  });
});

describe("translated (OpenAI-format upstream, alias claude-haiku-*)", () => {
  const model = "claude-haiku-4-5";

  test("create and stream of a tool call: the same message (ids aside)", async () => {
    const u = { prompt_tokens: 60, completion_tokens: 12 };
    oai.queue(openaiToolCall("call_w1", "get_weather", '{"city":"Paris"}', u), openaiToolStream("call_w1", "get_weather", '{"city":"Paris"}', u));
    const created = await client.messages.create({ model, max_tokens: 1024, messages: ask, tools });
    const streamed = await client.messages.stream({ model, max_tokens: 1024, messages: ask, tools }).finalMessage();
    expect(created).toMatchObject({ content: [{ type: "tool_use", id: "call_w1", name: "get_weather", input: { city: "Paris" } }], stop_reason: "tool_use" });
    expect(withoutId(streamed)).toEqual(withoutId(created));
  });

  test("create and stream of text: the same message (ids aside); the tool result went upstream under its id", async () => {
    const u = { prompt_tokens: 80, completion_tokens: 7 };
    oai.queue(completion("It is 18C and sunny.", u), openaiStream(["It is 18C ", "and sunny."], u));
    const turns: Anthropic.MessageParam[] = [
      ...ask,
      { role: "assistant", content: [{ type: "tool_use", id: "call_w1", name: "get_weather", input: { city: "Paris" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_w1", content: "18C, sunny" }] },
    ];
    const created = await client.messages.create({ model, max_tokens: 1024, messages: turns, tools });
    const stream = client.messages.stream({ model, max_tokens: 1024, messages: turns, tools });
    const texts: string[] = [];
    stream.on("text", (t) => texts.push(t));
    const streamed = await stream.finalMessage();
    expect(created.content).toEqual([{ type: "text", text: "It is 18C and sunny." }]);
    expect(texts.join("")).toBe("It is 18C and sunny.");
    expect(withoutId(streamed)).toEqual(withoutId(created));
    expect(created.usage).toEqual({ input_tokens: 80, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(oai.requests[0]!.body.messages.slice(1)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "call_w1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_w1", content: "18C, sunny" },
    ]);
    const ledger = await rows<{ cost: number }>(
      gw.db,
      "SELECT cost FROM ledger WHERE endpoint = 'messages' AND model = 'openai/gpt-4o-mini' ORDER BY id DESC LIMIT 1",
    );
    expect(ledger[0]!.cost).toBe(80 * 1000 + 7 * 2000);
  });

  test("countTokens is the gateway's estimate", async () => {
    const { input_tokens } = await client.messages.countTokens({ model, messages: ask, tools });
    expect(input_tokens).toBeGreaterThan(5);
    expect(oai.requests).toHaveLength(0);
  });

  test("an error is the SDK's typed error with the gateway's message", async () => {
    const err = await client.messages.create({ model: "gpt-nope", max_tokens: 5, messages: ask }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect((err as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: "error", error: { type: "not_found" } });
  });
});
