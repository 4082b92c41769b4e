/**
 * POST /v1/messages over HTTP (docs/messages.md): natively to an Anthropic-format fake (the body
 * and anthropic-beta arrive unchanged; cache usage billed exactly) and translated to an
 * OpenAI-format fake (tools, images, system, thinking → reasoning_effort, the event sequence).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";
import { CLAUDE, CLAUDE_UPSTREAM, claudeCost, GPT_PRICES, messagesConfig, openaiToolCall, openaiToolStream } from "./helpers/messages-wire.js";
import {
  message,
  messageEnd,
  messageStart,
  ping,
  streamError,
  textBlock,
  textBlockEvents,
  thinkingBlock,
  toolBlockEvents,
} from "./providers/anthropic.fixture.js";

let anth: FakeUpstream;
let oai: FakeUpstream;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  anth = await startFakeUpstream();
  oai = await startFakeUpstream();
  gw = await startGateway(messagesConfig(anth.url, oai.url));
  key = await gw.createKey();
  await gw.addCredits("100");
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

function post(body: unknown, headers: Record<string, string> = {}, path = "/v1/messages?beta=true") {
  return fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const ledgerRow = async (requestId: string) => (await rows<Record<string, any>>(gw.db, "SELECT * FROM ledger WHERE request_id = ?", requestId))[0]!;

/** Each SSE frame as [event line, data]. */
async function frames(res: Response): Promise<Array<[string | undefined, any]>> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((f) => {
      const event = /^event: (.*)$/m.exec(f)?.[1];
      const data = /^data: (.*)$/m.exec(f)?.[1];
      return [event, data === undefined ? undefined : JSON.parse(data)];
    });
}

const BETA = "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27";

/** What Claude Code sends, in small: every field a native route must carry unchanged. */
const nativeBody = {
  model: CLAUDE,
  max_tokens: 32000,
  system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }],
  messages: [
    { role: "system", content: "A system message inside messages." },
    { role: "user", content: [{ type: "text", text: "Hi", cache_control: { type: "ephemeral", ttl: "1h" } }] },
  ],
  tools: [
    { name: "Bash", description: "Run a command", input_schema: { type: "object", properties: { command: { type: "string" } } } },
    { name: "Later", input_schema: { type: "object" }, defer_loading: true },
  ],
  thinking: { type: "adaptive", display: "omitted" },
  context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
  output_config: { effort: "medium" },
  metadata: { user_id: '{"device_id":"abc"}' },
};

describe("native (Anthropic)", () => {
  test("the body and anthropic-beta arrive unchanged but for the model; the answer is the provider's with the gateway's id and usage; billed exactly", async () => {
    const usage = { input_tokens: 21, cache_creation_input_tokens: 1200, cache_read_input_tokens: 3400, output_tokens: 57 };
    anth.queue(message([thinkingBlock("Hmm."), textBlock("Hello!")], usage));
    const res = await post(nativeBody, { "anthropic-beta": BETA });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    const sent = anth.requests[0]!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.body).toEqual({ ...nativeBody, model: CLAUDE_UPSTREAM });
    expect(sent.headers["anthropic-beta"]).toBe(BETA);
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent.headers["x-api-key"]).toBe("sk-ant-api03-messages-test-4c1d");
    const requestId = res.headers.get("x-request-id")!;
    expect(body.id).toBe(`msg_${requestId.slice(4)}`);
    expect(body.content).toEqual([thinkingBlock("Hmm."), textBlock("Hello!")]);
    expect(body.model).toBe(CLAUDE_UPSTREAM);
    expect(body.usage).toEqual({ ...usage, service_tier: "standard" });
    const row = await ledgerRow(requestId);
    expect(row).toMatchObject({ endpoint: "messages", model: `anthropic/${CLAUDE}`, prompt_tokens: 21 + 1200 + 3400, completion_tokens: 57 });
    expect(row.cost).toBe(claudeCost(usage));
  });

  test("anthropic-version is forwarded as sent; 2023-06-01 when absent", async () => {
    anth.queue(message([textBlock("a")], { input_tokens: 1, output_tokens: 1 }), message([textBlock("b")], { input_tokens: 1, output_tokens: 1 }));
    await post({ model: CLAUDE, max_tokens: 10, messages: [{ role: "user", content: "x" }] }, { "anthropic-version": "2026-10-21" });
    const noVersion = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: CLAUDE, max_tokens: 10, messages: [{ role: "user", content: "x" }] }),
    });
    expect(noVersion.status).toBe(200);
    expect(anth.requests.map((r) => r.headers["anthropic-version"])).toEqual(["2026-10-21", "2023-06-01"]);
    expect(anth.requests[1]!.headers["anthropic-beta"]).toBeUndefined();
  });

  test("a stream is relayed event by event with its event lines; usage from message_start and message_delta is billed", async () => {
    const call = { id: "toolu_01A09q90qw90lq917835lq9", name: "Bash", arguments: '{"command":"ls"}' };
    anth.queue({
      sse: [
        messageStart({ input_tokens: 30, cache_read_input_tokens: 500, cache_creation_input_tokens: 40 }),
        ping,
        ...textBlockEvents(0, ["Let me ", "look."]),
        ...toolBlockEvents(1, call),
        ...messageEnd("tool_use", { output_tokens: 44 }),
      ],
      done: false,
    });
    const res = await post({ ...nativeBody, stream: true }, { "anthropic-beta": BETA });
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const got = await frames(res);
    for (const [event, data] of got) expect(event).toBe(data.type);
    expect(got.map(([e]) => e)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const requestId = res.headers.get("x-request-id")!;
    expect(got[0]![1].message.id).toBe(`msg_${requestId.slice(4)}`);
    expect(anth.requests[0]!.body.stream).toBe(true);
    expect(anth.requests[0]!.headers["anthropic-beta"]).toBe(BETA);
    await expect
      .poll(async () => (await ledgerRow(requestId))?.cost, { timeout: 3000 })
      .toBe(claudeCost({ input_tokens: 30, cache_read_input_tokens: 500, cache_creation_input_tokens: 40, output_tokens: 44 }));
  });

  test("a provider error event after the first byte ends the stream with the gateway's event: error", async () => {
    anth.queue({
      sse: [
        messageStart({ input_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }),
        ...textBlockEvents(0, ["Hi"]).slice(0, 2),
        streamError,
      ],
      done: false,
    });
    const got = await frames(await post({ model: CLAUDE, max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] }));
    expect(got.map(([e]) => e)).toEqual(["message_start", "content_block_start", "content_block_delta", "error"]);
    expect(got.at(-1)![1]).toMatchObject({ type: "error", error: { type: "upstream_error", code: "stream_interrupted" } });
  });

  test("a bare claude id resolves to anthropic/...; the OpenAI fake is never asked", async () => {
    anth.queue(message([textBlock("ok")], { input_tokens: 3, output_tokens: 1 }));
    const res = await post({ model: CLAUDE, max_tokens: 5, messages: [{ role: "user", content: "x" }] });
    expect(res.status).toBe(200);
    expect(oai.requests).toHaveLength(0);
    expect(anth.requests).toHaveLength(1);
  });
});

const HAIKU = "claude-haiku-4-5";

describe("translated (OpenAI format, via the glob alias claude-haiku-*)", () => {
  test("system blocks and system messages, images, tools and tool results, thinking → reasoning_effort; the answer is a message", async () => {
    oai.queue(openaiToolCall("call_abc", "Bash", '{"command":"echo hi"}', { prompt_tokens: 100, completion_tokens: 20 }));
    const res = await post(
      {
        model: HAIKU,
        max_tokens: 1000,
        system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
        messages: [
          { role: "system", content: "Inner system." },
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            ],
          },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "x", signature: "s" },
              { type: "text", text: "Let me run it." },
              { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "a.txt" }] },
              { type: "text", text: "and now?" },
            ],
          },
        ],
        tools: [{ name: "Bash", description: "Run", input_schema: { type: "object" }, cache_control: { type: "ephemeral" }, defer_loading: true }],
        tool_choice: { type: "auto", disable_parallel_tool_use: true },
        thinking: { type: "enabled", budget_tokens: 600 },
        context_management: { edits: [] },
        metadata: { user_id: "u1" },
        stop_sequences: ["END"],
        temperature: 0.5,
      },
      { "anthropic-beta": BETA },
    );
    expect(res.status).toBe(200);
    const sent = oai.requests[0]!.body;
    expect(oai.requests[0]!.headers["anthropic-beta"]).toBeUndefined();
    expect(sent.model).toBe("gpt-4o-mini");
    expect(sent.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "system", content: "Inner system." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
      {
        role: "assistant",
        content: "Let me run it.",
        tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }],
      },
      { role: "tool", tool_call_id: "toolu_1", content: "a.txt" },
      { role: "user", content: [{ type: "text", text: "and now?" }] },
    ]);
    expect(sent.tools).toEqual([{ type: "function", function: { name: "Bash", description: "Run", parameters: { type: "object" } } }]);
    expect(sent.parallel_tool_calls).toBe(false);
    expect(sent.stop).toEqual(["END"]);
    expect(sent.max_completion_tokens).toBe(1000);
    expect(sent.temperature).toBe(0.5);
    const body = (await res.json()) as Record<string, any>;
    expect(body).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "tool_use", id: "call_abc", name: "Bash", input: { command: "echo hi" } }],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    const row = await ledgerRow(res.headers.get("x-request-id")!);
    expect(row).toMatchObject({ endpoint: "messages", model: "openai/gpt-4o-mini", cost: 100 * GPT_PRICES.prompt + 20 * GPT_PRICES.completion });
  });

  test("a stream is Anthropic's event sequence, each frame with its event line", async () => {
    oai.queue(openaiToolStream("call_s1", "Bash", '{"command":"pwd"}', { prompt_tokens: 50, completion_tokens: 9 }));
    const res = await post({
      model: HAIKU,
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "run pwd" }],
      tools: [{ name: "Bash", input_schema: { type: "object" } }],
    });
    const got = await frames(res);
    for (const [event, data] of got) expect(event).toBe(data.type);
    expect(got.map(([e]) => e)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(got[1]![1].content_block).toEqual({ type: "tool_use", id: "call_s1", name: "Bash", input: {} });
    expect(got[2]![1].delta.type).toBe("input_json_delta");
    expect(got[5]![1]).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 50, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    expect(oai.requests[0]!.body.stream).toBe(true);
  });

  test("text stream: text_delta events, end_turn", async () => {
    oai.queue({
      sse: [
        {
          data: {
            id: "c",
            object: "chat.completion.chunk",
            created: 1,
            model: "m",
            choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
          },
        },
        { data: { id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }] } },
        {
          data: { id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "lo" }, finish_reason: "stop" }] },
        },
        {
          data: {
            id: "c",
            object: "chat.completion.chunk",
            created: 1,
            model: "m",
            choices: [],
            usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
          },
        },
      ],
    });
    const got = await frames(await post({ model: HAIKU, max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] }));
    expect(got.filter(([e]) => e === "content_block_delta").map(([, d]) => d.delta)).toEqual([
      { type: "text_delta", text: "Hel" },
      { type: "text_delta", text: "lo" },
    ]);
    expect(got.at(-2)![1].delta.stop_reason).toBe("end_turn");
  });

  test("max_tokens above the model's output limit is lowered to it; a cut stream ends with event: error", async () => {
    oai.queue({
      sse: [
        {
          data: {
            id: "c",
            object: "chat.completion.chunk",
            created: 1,
            model: "m",
            choices: [{ index: 0, delta: { role: "assistant", content: "Hel" }, finish_reason: null }],
          },
        },
      ],
      cut: true,
      delayMs: 20,
    });
    const got = await frames(await post({ model: HAIKU, max_tokens: 128000, stream: true, messages: [{ role: "user", content: "hi" }] }));
    expect(oai.requests[0]!.body.max_completion_tokens).toBe(16384);
    expect(got.map(([e]) => e)).toEqual(["message_start", "content_block_start", "content_block_delta", "error"]);
    expect(got.at(-1)![1]).toMatchObject({ type: "error", error: { type: "upstream_error", code: "stream_interrupted" } });
  });

  test("a field that would change the answer and has no translation is a 400 naming it, before any upstream call", async () => {
    const res = await post({ model: HAIKU, max_tokens: 10, top_k: 5, messages: [{ role: "user", content: "x" }] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, any>;
    expect(body.type).toBe("error");
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "unsupported_parameter" });
    expect(body.error.message).toMatch(/^top_k: /);
    const pdf = await post({
      model: HAIKU,
      max_tokens: 10,
      messages: [{ role: "user", content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } }] }],
    });
    expect(((await pdf.json()) as any).error.message).toMatch(/^messages\.0\.content\.0\.source: /);
    expect(oai.requests).toHaveLength(0);
  });

  test("thinking on a model without reasoning is dropped; with reasoning it is reasoning_effort", async () => {
    oai.queue(completion("ok"), completion("ok"), completion("ok"));
    const ask = (model: string, extra: Record<string, unknown>) => post({ model, max_tokens: 1000, messages: [{ role: "user", content: "x" }], ...extra });
    expect((await ask(HAIKU, { thinking: { type: "adaptive" }, output_config: { effort: "high" } })).status).toBe(200);
    expect((await ask("claude-opus-5-5", { thinking: { type: "adaptive" }, output_config: { effort: "max" } })).status).toBe(200);
    expect((await ask("claude-opus-5-5", { thinking: { type: "enabled", budget_tokens: 100 } })).status).toBe(200);
    expect(oai.requests.map((r) => [r.body.model, r.body.reasoning_effort])).toEqual([
      ["gpt-4o-mini", undefined],
      ["o4-mini", "high"],
      ["o4-mini", "low"],
    ]);
  });
});

describe("errors", () => {
  test("validation, a missing key and an unknown model in Anthropic's envelope", async () => {
    const bad = await post({ model: CLAUDE, messages: [{ role: "user", content: "x" }] });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as Record<string, any>;
    expect(body).toEqual({
      type: "error",
      error: { message: "max_tokens: Required", type: "invalid_request_error", code: null, request_id: bad.headers.get("x-request-id") },
    });
    const noKey = await fetch(`${gw.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as any).type).toBe("error");
    const unknown = await post({ model: "claude-nope-1", max_tokens: 5, messages: [{ role: "user", content: "x" }] });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.type).toBe("not_found");
  });

  test("an upstream failure is a 503 in the envelope, never 529", async () => {
    anth.queue({ status: 529, json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } });
    anth.fallback = () => ({ status: 529, json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } });
    try {
      const res = await post({ model: CLAUDE, max_tokens: 5, messages: [{ role: "user", content: "x" }] });
      expect(res.status).toBe(503);
      expect(((await res.json()) as any).error.code).toBe("upstream_unavailable");
    } finally {
      anth.fallback = () => ({ status: 500, json: { error: "no reply scripted" } });
    }
  });
});

describe("count_tokens", () => {
  const countBody = {
    model: CLAUDE,
    system: "Be brief.",
    messages: [{ role: "user", content: "Hello there" }],
    tools: [{ name: "Bash", input_schema: { type: "object" } }],
  };

  test("Anthropic's own count, the body as sent but for the model, anthropic-beta forwarded; no ledger row", async () => {
    anth.queue({ json: { input_tokens: 1234 } });
    const res = await post(countBody, { "anthropic-beta": BETA }, "/v1/messages/count_tokens?beta=true");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ input_tokens: 1234 });
    expect(anth.requests[0]!.path).toBe("/v1/messages/count_tokens");
    expect(anth.requests[0]!.body).toEqual({ ...countBody, model: CLAUDE_UPSTREAM });
    expect(anth.requests[0]!.headers["anthropic-beta"]).toBe(BETA);
    expect(await rows(gw.db, "SELECT * FROM ledger WHERE request_id = ?", res.headers.get("x-request-id"))).toEqual([]);
    expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
  });

  test("translated: the gateway's estimate, no upstream call", async () => {
    const res = await post({ ...countBody, model: HAIKU }, {}, "/v1/messages/count_tokens");
    expect(res.status).toBe(200);
    const { input_tokens } = (await res.json()) as { input_tokens: number };
    expect(input_tokens).toBeGreaterThan(5);
    expect(input_tokens).toBeLessThan(60);
    expect(oai.requests).toHaveLength(0);
  });

  test("errors in Anthropic's envelope", async () => {
    const res = await post({ messages: [] }, {}, "/v1/messages/count_tokens");
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).type).toBe("error");
  });
});

describe("route", () => {
  test("405 for other methods with Allow; /v1/openapi.json describes both paths", async () => {
    const get = await fetch(`${gw.url}/v1/messages?beta=true`, { headers: { "x-api-key": key } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const doc = (await (await fetch(`${gw.url}/v1/openapi.json`)).json()) as Record<string, any>;
    expect(Object.keys(doc.paths["/v1/messages"])).toEqual(["post"]);
    expect(Object.keys(doc.paths["/v1/messages/count_tokens"])).toEqual(["post"]);
    expect(doc.components.schemas.MessagesRequest.required).toEqual(expect.arrayContaining(["model", "messages", "max_tokens"]));
  });
});
