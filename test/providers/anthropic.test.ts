import { afterEach, beforeEach, describe, expect, test } from "vitest";
import plugin from "../../providers/anthropic/index.js";
import { syncModels } from "../../src/operations/sync-models.js";
import { describeProvider } from "../helpers/conformance.js";
import { startFakeUpstream, type FakeUpstream, type Reply } from "../helpers/fake-upstream.js";
import { FAST_RETRY, startGateway, useGateway, type TestGateway } from "../helpers/gateway.js";
import { bearer, expectError, post } from "../helpers/http.js";
import {
  anthropicFixture,
  errorReply,
  message,
  MODEL,
  messageEnd,
  messageStart,
  ping,
  streamError,
  textBlock,
  textBlockEvents,
  toolBlockEvents,
  toolUseBlock,
} from "./anthropic.fixture.js";

describeProvider(anthropicFixture);

const KEY = "sk-ant-api03-test-key-7f1e";
const CAPPED_KEY = "sk-ant-api03-capped-key-2b9c";
const usage = { input_tokens: 12, output_tokens: 5 };
const hi = [{ role: "user", content: "Hi" }];
const route = (id: string, provider: string, model: string, maxOutput?: number) => ({
  id,
  pricing: { prompt: "3", completion: "15" },
  max_output: maxOutput,
  endpoints: [{ provider, model }],
});

describe("anthropic adapter", () => {
  const h = useGateway(
    (fakeUrl) => ({
      providers: {
        anthropic: { baseUrl: fakeUrl, apiKey: KEY },
        capped: { plugin: "anthropic", baseUrl: `${fakeUrl}/`, apiKey: CAPPED_KEY, maxTokens: 2048 },
      },
      models: [
        route("anthropic/sonnet", "anthropic", MODEL, 64_000),
        route("anthropic/haiku-3", "anthropic", "claude-3-haiku-20240307", 4096),
        route("anthropic/opus-4-1", "anthropic", "claude-opus-4-1-20250805", 32_000),
        route("anthropic/opus-4-6", "anthropic", "claude-opus-4-6", 128_000),
        route("anthropic/next", "anthropic", "claude-next-1"),
        route("capped/sonnet", "capped", MODEL, 64_000),
      ],
      retry: FAST_RETRY,
    }),
    { credits: "1000", body: { model: "anthropic/sonnet", messages: hi } },
  );

  test("POST /v1/messages with x-api-key and anthropic-version, never a bearer token; a trailing slash in baseUrl is harmless", async () => {
    h.fake.queue(message([textBlock("ok")], usage), message([textBlock("ok")], usage));
    expect((await h.post({})).status).toBe(200);
    expect((await h.post({ model: "capped/sonnet" })).status).toBe(200);
    const [first, second] = h.fake.requests;
    expect(first).toMatchObject({ method: "POST", path: "/v1/messages" });
    expect(first!.headers).toMatchObject({ "x-api-key": KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" });
    expect(first!.headers.authorization).toBeUndefined();
    expect(second).toMatchObject({ path: "/v1/messages", headers: { "x-api-key": CAPPED_KEY } });
  });

  test.each([
    ["anthropic/sonnet", 64_000],
    ["anthropic/haiku-3", 4096],
    ["anthropic/opus-4-1", 32_000],
    ["anthropic/opus-4-6", 128_000],
    ["anthropic/next", 4096],
    ["capped/sonnet", 2048],
  ])(
    "without max_tokens, %s is sent max_tokens %i (the catalog's output limit, 4096 when unknown, capped by the maxTokens option)",
    async (model, expected) => {
      h.fake.queue(message([textBlock("ok")], usage));
      expect((await h.post({ model })).status).toBe(200);
      expect(h.sent().max_tokens).toBe(expected);
    },
  );

  test("the request's max_tokens wins over the maxTokens option", async () => {
    h.fake.queue(message([textBlock("ok")], usage));
    await h.post({ model: "capped/sonnet", max_tokens: 77 });
    expect(h.sent().max_tokens).toBe(77);
  });

  test("temperature is clamped to 1, top_p and stop pass, seed and zero penalties are not sent", async () => {
    h.fake.queue(message([textBlock("ok")], usage), message([textBlock("ok")], usage));
    expect((await h.post({ temperature: 1.7, top_p: 0.9, stop: "END", seed: 42, presence_penalty: 0, frequency_penalty: 0, n: 1 })).status).toBe(200);
    expect(h.sent()).toEqual({
      model: MODEL,
      max_tokens: 64_000,
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      temperature: 1,
      top_p: 0.9,
      stop_sequences: ["END"],
    });
    await h.post({ temperature: 0 });
    expect(h.sent().temperature).toBe(0);
  });

  test.each([
    [{ n: 2 }, "n"],
    [{ frequency_penalty: 0.5 }, "frequency_penalty"],
    [{ presence_penalty: -1 }, "presence_penalty"],
  ])("%j is a 400 unsupported_parameter naming the field, and nothing goes upstream", async (params, field) => {
    const err = await expectError(await h.post(params), 400, "invalid_request_error", "unsupported_parameter");
    expect(err.message.startsWith(`${field}:`)).toBe(true);
    expect(h.fake.requests).toHaveLength(0);
  });

  test("tool-call arguments that are not a JSON object are a 400", async () => {
    const messages = [
      ...hi,
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "f", arguments: "[1,2]" } }] },
    ];
    const err = await expectError(await h.post({ messages }), 400, "invalid_request_error", "unsupported_parameter");
    expect(err.message).toContain("messages.1.tool_calls.0.function.arguments");
    expect(h.fake.requests).toHaveLength(0);
  });

  test("history: systems lifted, same-role turns merged, tool results in one user turn, history tools declared", async () => {
    h.fake.queue(message([textBlock("ok")], usage));
    const call = (id: string, name: string, args: string) => ({ id, type: "function", function: { name, arguments: args } });
    const messages = [
      { role: "system", content: "Be terse." },
      { role: "user", content: "Weather in Paris" },
      { role: "user", content: "and the time?" },
      { role: "assistant", content: "Checking.", tool_calls: [call("toolu_a", "get_weather", '{"city":"Paris"}'), call("toolu_b", "get_time", "")] },
      { role: "system", content: "Answer in French." },
      { role: "tool", tool_call_id: "toolu_a", content: '{"temp":21}' },
      { role: "tool", tool_call_id: "toolu_b", content: "" },
      { role: "user", content: "Thanks" },
      { role: "assistant", content: null, tool_calls: [call("toolu_c", "get_weather", '{"city":"Lyon"}')] },
      { role: "tool", tool_call_id: "toolu_c", content: "cloudy" },
    ];
    expect((await h.post({ messages })).status).toBe(200);
    const body = h.sent();
    expect(body.system).toEqual([
      { type: "text", text: "Be terse." },
      { type: "text", text: "Answer in French." },
    ]);
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Weather in Paris" },
          { type: "text", text: "and the time?" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_b", name: "get_time", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: '{"temp":21}' },
          { type: "tool_result", tool_use_id: "toolu_b" },
          { type: "text", text: "Thanks" },
        ],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_c", name: "get_weather", input: { city: "Lyon" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_c", content: "cloudy" }] },
    ]);
    expect(body.tools).toEqual([
      { name: "get_weather", input_schema: { type: "object" } },
      { name: "get_time", input_schema: { type: "object" } },
    ]);
  });

  test("usage: cache reads and writes count as prompt tokens", async () => {
    h.fake.queue(message([textBlock("ok")], { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 50, output_tokens: 7 }));
    const r = (await (await h.post({})).json()) as { usage: unknown };
    // Reads are shown as cached_tokens; writes are billed (test/money-cache.test.ts) but have no OpenAI field.
    expect(r.usage).toEqual({ prompt_tokens: 160, completion_tokens: 7, total_tokens: 167, prompt_tokens_details: { cached_tokens: 100 } });
  });

  test.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["pause_turn", "stop"],
    ["refusal", "stop"],
    ["model_context_window_exceeded", "length"],
  ])("stop_reason %s is finish_reason %s", async (stopReason, finish) => {
    h.fake.queue(message([textBlock("x")], usage, stopReason));
    const r = (await (await h.post({})).json()) as { choices: Array<{ finish_reason: string }> };
    expect(r.choices[0]!.finish_reason).toBe(finish);
  });

  test("a response with text, thinking and two tool_use blocks: text kept, both calls returned in order", async () => {
    const thinking = { type: "thinking", thinking: "The user wants both.", signature: "EqQBCgIYAh" };
    const a = { id: "toolu_01A", name: "get_weather", arguments: '{"city":"Paris"}' };
    const b = { id: "toolu_01B", name: "get_time", arguments: '{"tz":"CET"}' };
    h.fake.queue(message([thinking, textBlock("Let me check both."), toolUseBlock(a), toolUseBlock(b)], usage, "tool_use"));
    const r = (await (await h.post({})).json()) as { choices: Array<{ message: Record<string, unknown> }> };
    expect(r.choices[0]!.message).toEqual({
      role: "assistant",
      content: "Let me check both.",
      tool_calls: [a, b].map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
    });
  });

  test("stream: text then two tool_use blocks become tool calls 0 and 1; usage is cumulative, not summed", async () => {
    const a = { id: "toolu_01A", name: "get_weather", arguments: '{"city":"Paris"}' };
    const b = { id: "toolu_01B", name: "get_time", arguments: '{"tz":"CET"}' };
    h.fake.queue({
      sse: [
        messageStart({ input_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }),
        ...textBlockEvents(0, ["Let me ", "check."]),
        ping,
        ...toolBlockEvents(1, a),
        ...toolBlockEvents(2, b),
        ...messageEnd("tool_use", { input_tokens: 20, cache_read_input_tokens: 300, cache_creation_input_tokens: 0, output_tokens: 42 }),
      ],
      done: false,
    });
    const stream = await h.gw.client(h.key).chat.completions.create({ model: "anthropic/sonnet", messages: hi as never, stream: true });
    let text = "";
    const calls: Array<{ id?: string; name: string; arguments: string }> = [];
    const finals: unknown[] = [];
    for await (const c of stream) {
      text += c.choices[0]?.delta?.content ?? "";
      for (const t of c.choices[0]?.delta?.tool_calls ?? []) {
        const cur = (calls[t.index] ??= { name: "", arguments: "" });
        if (t.id) cur.id = t.id;
        cur.name += t.function?.name ?? "";
        cur.arguments += t.function?.arguments ?? "";
      }
      if (c.choices[0]?.finish_reason) finals.push({ finish: c.choices[0].finish_reason, usage: c.usage });
    }
    expect(text).toBe("Let me check.");
    expect(calls).toEqual([a, b]);
    expect(finals).toEqual([
      { finish: "tool_calls", usage: { prompt_tokens: 320, completion_tokens: 42, total_tokens: 362, prompt_tokens_details: { cached_tokens: 300 } } },
    ]);
    expect(h.sent().stream).toBe(true);
  });

  test("message_stop ends the answer: a response left open after it does not hold the client's stream, and what follows is not read", async () => {
    const after = textBlockEvents(1, ["never shown"]);
    h.fake.queue({
      sse: [messageStart({ input_tokens: 5 }), ...textBlockEvents(0, ["whole"]), ...messageEnd("end_turn", { output_tokens: 2 }), ...after],
      done: false,
      holdOpen: true,
    });
    const t = Date.now();
    const text = await (await h.post({ stream: true })).text();
    expect(Date.now() - t).toBeLessThan(1000);
    expect(text).toContain('"content":"whole"');
    expect(text).not.toContain("never shown");
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  test("an error event after content ends the client stream with an error event, no [DONE], no provider detail", async () => {
    // Whatever follows an error event, the answer is incomplete: the adapter must not read on.
    const after = [...textBlockEvents(0, ["never shown"]).slice(1, 2), ...messageEnd("end_turn", { output_tokens: 3 })];
    h.fake.queue({ sse: [messageStart({ input_tokens: 5 }), ...textBlockEvents(0, ["partial"]).slice(0, 2), streamError, ...after], done: false });
    const res = await h.post({ stream: true });
    const text = await res.text();
    expect(text).toContain('"content":"partial"');
    expect(text).toContain('"code":"stream_interrupted"');
    expect(text).not.toContain("[DONE]");
    expect(text).not.toContain("Overloaded");
    expect(text).not.toContain("never shown");
  });

  test("an error event before any content fails over: the retry's answer is streamed", async () => {
    const after = [...textBlockEvents(0, ["ignored"]), ...messageEnd("end_turn", { output_tokens: 3 })];
    h.fake.queue(
      { sse: [messageStart({ input_tokens: 5 }), ping, streamError, ...after], done: false },
      anthropicFixture.stream(["fine"], { prompt: 5, completion: 1 }),
    );
    const text = await (await h.post({ stream: true })).text();
    expect(text).toContain('"content":"fine"');
    expect(text).not.toContain("ignored");
    expect(text).toContain("[DONE]");
    expect(h.fake.requests).toHaveLength(2);
  });

  test("529 overloaded_error is retried", async () => {
    h.fake.queue(errorReply(529, "Overloaded"), message([textBlock("second try")], usage));
    const r = (await (await h.post({})).json()) as { choices: Array<{ message: { content: string } }> };
    expect(r.choices[0]!.message.content).toBe("second try");
    expect(h.fake.requests).toHaveLength(2);
  });

  test.each([404, 413])("%i is a client 400, not retried", async (status) => {
    h.fake.queue(errorReply(status, "nope"));
    await expectError(await h.post({}), 400, "invalid_request_error", "upstream_rejected");
    expect(h.fake.requests).toHaveLength(1);
  });
});

describe("anthropic key rejection fails over to the next instance", () => {
  let primary: FakeUpstream;
  let backup: FakeUpstream;
  let gw: TestGateway;

  beforeEach(async () => {
    [primary, backup] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
    gw = await startGateway({
      providers: {
        primary: { plugin: "anthropic", baseUrl: primary.url, apiKey: KEY },
        backup: { plugin: "anthropic", baseUrl: backup.url, apiKey: CAPPED_KEY },
      },
      models: [
        {
          id: "anthropic/sonnet",
          pricing: { prompt: "3", completion: "15" },
          order: "fixed",
          endpoints: [
            { provider: "primary", model: MODEL },
            { provider: "backup", model: MODEL },
          ],
        },
      ],
      retry: FAST_RETRY,
    });
    await gw.addCredits("10");
  });
  afterEach(async () => {
    await gw.close();
    await Promise.all([primary.close(), backup.close()]);
  });

  const run = async (reply: Reply) => {
    primary.queue(reply);
    backup.queue(message([textBlock("from backup")], usage));
    const res = await post(gw.url, "/v1/chat/completions", { model: "anthropic/sonnet", messages: hi }, bearer(await gw.createKey()));
    const health = (await (await fetch(`${gw.url}/v1/health/providers`)).json()) as { providers: Array<{ id: string; status: string }> };
    return { res, primaryStatus: health.providers.find((p) => p.id === "primary")!.status };
  };

  test.each([
    [
      "400 credit balance too low",
      errorReply(400, "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."),
    ],
    ["401 authentication_error", errorReply(401, "invalid x-api-key")],
    ["402 billing_error", errorReply(402, "billing")],
    ["429 spend cap reached", errorReply(429, "You have reached your API usage limits.", { details: { error_code: "enforced_spend_limit_reached" } })],
  ])("%s: the key is rejected, the backup answers", async (_name, reply) => {
    const { res, primaryStatus } = await run(reply);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("from backup");
    expect(primaryStatus).toBe("misconfigured"); // the gateway's own key: the operator's to fix (docs/cli.md)
  });

  test("any other 400 is the request's fault: no failover, the key stays trusted", async () => {
    const { res, primaryStatus } = await run(errorReply(400, "messages: roles must alternate"));
    expect(res.status).toBe(400);
    expect(backup.requests).toHaveLength(0);
    expect(primaryStatus).not.toBe("misconfigured");
  });
});

describe("anthropic model listing", () => {
  test("GET /v1/models?limit=1000 with the same headers; ids, context and output limits are read", async () => {
    const list = {
      data: [
        {
          type: "model",
          id: "claude-new-model-1",
          display_name: "Claude New 1",
          created_at: "2026-02-19T00:00:00Z",
          max_input_tokens: 200_000,
          max_tokens: 64_000,
          capabilities: null,
        },
        {
          type: "model",
          id: "claude-haiku-4-5-20251001",
          display_name: "Claude Haiku 4.5",
          created_at: "2025-10-15T00:00:00Z",
          max_input_tokens: null,
          max_tokens: null,
        },
      ],
      has_more: false,
      first_id: "claude-new-model-1",
      last_id: "claude-haiku-4-5-20251001",
    };
    const fake = await startFakeUpstream(() => ({ json: list }));
    const gw = await startGateway({ providers: { anthropic: { baseUrl: fake.url, apiKey: KEY } }, models: [] });
    try {
      const report = await syncModels(gw.server.gateway.config, gw.store, gw.server.gateway.instances);
      expect(report.providers).toEqual([{ id: "anthropic", ok: true, models: 2 }]);
      expect(fake.requests[0]).toMatchObject({
        method: "GET",
        path: "/v1/models?limit=1000",
        headers: { "x-api-key": KEY, "anthropic-version": "2023-06-01" },
      });
      expect((await gw.store.catalog()).find((m) => m.id === "anthropic/claude-new-model-1")).toMatchObject({ contextLength: 200_000 });
      expect(plugin.models!.response(list)).toEqual([
        { id: "claude-new-model-1", contextLength: 200_000, maxOutput: 64_000 },
        { id: "claude-haiku-4-5-20251001", contextLength: undefined, maxOutput: undefined },
      ]);
    } finally {
      await gw.close();
      await fake.close();
    }
  });
});
