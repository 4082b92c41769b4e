/**
 * POST /v1/responses with the official `openai` client (6.x), unchanged but for baseURL and
 * apiKey: `responses.create` and the `responses.stream` helper (which rebuilds the response
 * from the events and checks their order, indexes and item ids), against an OpenAI, an
 * Anthropic and a Gemini upstream. Each fake speaks its provider's real wire format (the
 * fixtures of test/providers/*.fixture.ts cite the references) and the tests assert what it
 * received: the Responses request arrives translated, tool results under the call ids issued.
 */
import type OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { useGateway } from "../helpers/gateway.js";
import { ANSWER, configFor, MODEL, secondTurn, toolTurns, RESPONSES_UPSTREAMS, WEATHER, type Upstream } from "./upstreams.js";

const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
const tools: OpenAI.Responses.FunctionTool[] = [
  { type: "function", name: "get_weather", description: "The current weather in a city.", parameters, strict: true },
];
const ask = "What is the weather in Paris?";
const tokens = { prompt: 40, completion: 9 };
/** The fakes' usage as a Responses `usage`; the Anthropic fixture reports a fifth of the prompt as cache reads. */
const usageFrom = (u: Upstream) => ({
  input_tokens: 40,
  input_tokens_details: { cached_tokens: u.name === "Anthropic" ? 8 : 0 },
  output_tokens: 9,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 49,
});

/** OAPI `Response`'s required fields, and what the gateway adds from the optional ones. */
const RESPONSE_KEYS = [
  "id",
  "object",
  "created_at",
  "completed_at",
  "status",
  "model",
  "output",
  "error",
  "incomplete_details",
  "instructions",
  "metadata",
  "parallel_tool_calls",
  "temperature",
  "top_p",
  "tool_choice",
  "tools",
  "text",
  "reasoning",
  "max_output_tokens",
  "previous_response_id",
  "store",
  "truncation",
  "usage",
].sort();

const report = { type: "object", properties: { city: { type: "string" }, temp: { type: "number" } }, required: ["city", "temp"], additionalProperties: false };
const REPORT = '{"city":"Paris","temp":18}';

/** The structured-output request as each provider received it (the per-provider translation of docs/openai-compat.md). */
function formatSent(u: Upstream, body: any): unknown {
  if (u.name === "OpenAI") return body.response_format;
  if (u.name === "Anthropic") return { tools: body.tools, tool_choice: body.tool_choice };
  return body.generationConfig;
}

const FORMAT_SENT: Record<string, unknown> = {
  OpenAI: { type: "json_schema", json_schema: { name: "weather_report", schema: report, strict: true } },
  Anthropic: {
    tools: [{ name: "weather_report", input_schema: report }],
    tool_choice: { type: "tool", name: "weather_report", disable_parallel_tool_use: true },
  },
  Gemini: { responseMimeType: "application/json", responseJsonSchema: expect.objectContaining({ type: "object", required: ["city", "temp"] }) },
};

/** Each provider's answer in structured-output mode: JSON text, or Anthropic's forced tool. */
function reportReply(u: Upstream, stream: boolean) {
  if (u.name !== "Anthropic") return stream ? u.fixture.stream(['{"city":"Paris",', '"temp":18}'], tokens) : u.fixture.text(REPORT, tokens);
  const call = { id: "toolu_01Report", name: "weather_report", arguments: REPORT };
  return stream ? u.fixture.streamToolCall(call, tokens) : u.fixture.toolCall(call, tokens);
}

/** Consecutive repeats folded: the deltas' count depends on how the upstream split its text. */
const fold = (types: string[]) => types.filter((t, i) => t !== types[i - 1]);

for (const u of RESPONSES_UPSTREAMS) {
  describe(`responses API through the openai client against a ${u.name} upstream`, () => {
    const h = useGateway(configFor(u), { fallback: toolTurns(u) });
    const client = () => h.gw.client(h.key);
    const usage = usageFrom(u);

    test("responses.create: text, instructions as the system turn, the Response object and its usage", async () => {
      h.fake.queue(u.fixture.text("Hello from upstream", tokens));
      const r = await client().responses.create({ model: MODEL, instructions: "Be terse.", input: "Hi", max_output_tokens: 100, temperature: 0.5 });
      expect(
        Object.keys(r)
          .filter((k) => k !== "output_text")
          .sort(),
      ).toEqual(RESPONSE_KEYS); // output_text is the SDK's
      expect(r).toMatchObject({
        object: "response",
        status: "completed",
        model: MODEL,
        error: null,
        incomplete_details: null,
        instructions: "Be terse.",
        store: true,
        max_output_tokens: 100,
        temperature: 0.5,
      });
      expect(r.id).toMatch(/^resp_[0-9a-f]{32}$/);
      expect(r.output).toEqual([
        {
          type: "message",
          id: expect.stringMatching(/^msg_/),
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Hello from upstream", annotations: [], logprobs: [] }],
        },
      ]);
      expect(r.output_text).toBe("Hello from upstream");
      expect(r.usage).toEqual(usage);
      const seen = u.fixture.seen(h.fake.requests[0]!);
      expect(h.fake.requests[0]!.path).toBe(u.path(false));
      expect(seen.system).toBe("Be terse.");
      expect(seen.messages).toEqual([{ role: "user", text: "Hi" }]);
      expect(seen.maxTokens).toBe(100);
    });

    test("responses.stream: the published event order, sequence numbers from 0, the final response with usage", async () => {
      h.fake.queue(u.fixture.stream(["Hel", "lo ", "world"], tokens));
      const stream = client().responses.stream({ model: MODEL, input: "Hi" });
      const events: Array<{ type: string; sequence_number: number }> = [];
      const deltas: string[] = [];
      stream.on("event", (e) => events.push(e));
      stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
      const final = await stream.finalResponse();
      expect(fold(events.map((e) => e.type))).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
      ]);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      expect(deltas.join("")).toBe("Hello world");
      expect(final.output_text).toBe("Hello world");
      expect(final.status).toBe("completed");
      expect(final.usage).toEqual(usage);
      expect(u.fixture.seen(h.fake.requests[0]!).stream).toBe(true);
    });

    for (const stream of [false, true]) {
      test(`a function call and its output over two turns, call_id preserved (${stream ? "streamed" : "create"})`, async () => {
        const turn = async (input: OpenAI.Responses.ResponseInput) => {
          if (!stream) return client().responses.create({ model: MODEL, input, tools });
          const s = client().responses.stream({ model: MODEL, input, tools });
          return s.finalResponse();
        };
        const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: ask }];
        const first = await turn(input);
        // (the stream helper adds `parsed_arguments` for a strict tool)
        expect(first.output).toEqual([
          expect.objectContaining({
            type: "function_call",
            id: expect.stringMatching(/^fc_/),
            call_id: u.call.id,
            name: "get_weather",
            arguments: '{"city":"Paris"}',
            status: "completed",
          }),
        ]);
        expect(u.toolNames(h.fake.requests[0]!.body)).toEqual(["get_weather"]);
        const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
        const second = await turn([
          ...input,
          ...(first.output as OpenAI.Responses.ResponseInputItem[]),
          { type: "function_call_output", call_id: call.call_id, output: WEATHER },
        ]);
        expect(second.output_text).toBe(ANSWER);
        const turn2 = secondTurn(u, h.fake.requests[1]!);
        expect(turn2.calls).toEqual([{ id: u.call.id, name: "get_weather", arguments: '{"city":"Paris"}' }]);
        expect(turn2.results).toEqual([{ id: u.call.id, text: WEATHER }]);
      });
    }

    test("responses.stream: a function call's events (added, argument deltas, done with name and arguments, item done)", async () => {
      h.fake.queue(u.fixture.streamToolCall(u.call, tokens));
      const stream = client().responses.stream({ model: MODEL, input: ask, tools });
      const events: any[] = [];
      stream.on("event", (e) => events.push(e));
      const final = await stream.finalResponse();
      expect(fold(events.map((e) => e.type))).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
      ]);
      const done = events.find((e) => e.type === "response.function_call_arguments.done");
      expect(done).toMatchObject({ name: "get_weather", arguments: '{"city":"Paris"}', item_id: final.output[0]!.id, output_index: 0 });
      expect(final.output).toEqual([
        expect.objectContaining({ type: "function_call", call_id: u.call.id, arguments: '{"city":"Paris"}', status: "completed" }),
      ]);
      expect(final.usage).toEqual(usage);
    });

    for (const stream of [false, true]) {
      test(`text.format json_schema reaches the provider as its structured output (${stream ? "streamed" : "create"})`, async () => {
        h.fake.queue(reportReply(u, stream));
        const text = { format: { type: "json_schema" as const, name: "weather_report", schema: report, strict: true } };
        const r = stream
          ? await client().responses.stream({ model: MODEL, input: "Weather report for Paris", text }).finalResponse()
          : await client().responses.create({ model: MODEL, input: "Weather report for Paris", text });
        expect(JSON.parse(r.output_text)).toEqual({ city: "Paris", temp: 18 });
        expect(r.text).toEqual(text);
        expect(formatSent(u, h.fake.requests[0]!.body)).toMatchObject(FORMAT_SENT[u.name]!);
      });
    }

    test("previous_response_id: turn 2 carries turn 1's input and output (not its instructions)", async () => {
      h.fake.queue(u.fixture.text("Hello Ada.", tokens), u.fixture.text("Your name is Ada.", tokens));
      const first = await client().responses.create({ model: MODEL, instructions: "Be terse.", input: "My name is Ada." });
      const second = await client().responses.create({ model: MODEL, previous_response_id: first.id, input: [{ role: "user", content: "What is my name?" }] });
      expect(second.output_text).toBe("Your name is Ada.");
      expect(second.previous_response_id).toBe(first.id);
      const seen = u.fixture.seen(h.fake.requests[1]!);
      expect(seen.system).toBeNull();
      expect(seen.messages).toEqual([
        { role: "user", text: "My name is Ada." },
        { role: "assistant", text: "Hello Ada." },
        { role: "user", text: "What is my name?" },
      ]);
    });
  });
}
