/**
 * POST /v1/messages to a Claude model on Bedrock, natively (docs/messages.md): InvokeModel
 * with the client's body (anthropic_version bedrock-2023-05-31, the model in the path,
 * anthropic-beta as anthropic_beta), the answer unchanged but for id and usage, the stream's
 * `chunk` events unwrapped into Anthropic's events and relayed; a non-Claude Bedrock model
 * is translated through Converse.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { rows } from "./helpers/rows.js";
import { converse, eventStream, frame, resign, SECRET, UPSTREAM_MODEL } from "./providers/bedrock.fixture.js";

const KEY_ID = "AKIAIOSFODNN7EXAMPLE";
const NOVA = "amazon.nova-lite-v1:0";

let fake: FakeUpstream;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  gw = await startGateway({
    providers: { bedrock: { baseUrl: fake.url, apiKey: `${KEY_ID}:${SECRET}`, region: "us-west-2" } },
    models: [
      {
        id: "bedrock/claude-haiku",
        pricing: { prompt: "1", completion: "5", cache_read: "0.1", cache_write: "1.25" },
        endpoints: [{ provider: "bedrock", model: UPSTREAM_MODEL }],
      },
      { id: "bedrock/nova-lite", pricing: { prompt: "1", completion: "5" }, endpoints: [{ provider: "bedrock", model: NOVA }] },
    ],
  });
  key = await gw.createKey();
  await gw.addCredits("100");
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/messages`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

const body = {
  model: "bedrock/claude-haiku",
  max_tokens: 500,
  system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
  messages: [{ role: "user", content: [{ type: "text", text: "Hi", cache_control: { type: "ephemeral" } }] }],
  thinking: { type: "enabled", budget_tokens: 1024 },
  context_management: { edits: [] },
};
const usage = { input_tokens: 11, cache_creation_input_tokens: 300, cache_read_input_tokens: 700, output_tokens: 9 };
/** nano-USD: $1, $5, $0.10, $1.25 per 1M tokens. */
const cost = 11 * 1000 + 9 * 5000 + 700 * 100 + 300 * 1250;

describe("Claude on Bedrock, native", () => {
  test("InvokeModel with the client's body, signed; the answer unchanged but for id and usage; billed exactly", async () => {
    const content = [
      { type: "thinking", thinking: "hm", signature: "sig" },
      { type: "text", text: "Hello" },
    ];
    fake.queue({
      json: {
        id: "msg_bdrk_01",
        type: "message",
        role: "assistant",
        model: "claude-3-5-haiku-20241022",
        content,
        stop_reason: "end_turn",
        stop_sequence: null,
        usage,
      },
    });
    const res = await post(body, { "anthropic-beta": "context-management-2025-06-27, interleaved-thinking-2025-05-14" });
    expect(res.status).toBe(200);
    const sent = fake.requests[0]!;
    expect(sent.path).toBe(`/model/${encodeURIComponent(UPSTREAM_MODEL)}/invoke`);
    const { model: _m, ...rest } = body;
    expect(sent.body).toEqual({
      anthropic_version: "bedrock-2023-05-31",
      ...rest,
      anthropic_beta: ["context-management-2025-06-27", "interleaved-thinking-2025-05-14"],
    });
    expect(await resign(sent, { accessKeyId: KEY_ID, secretAccessKey: SECRET }, "us-west-2")).toBe(sent.headers.authorization);
    const answer = (await res.json()) as Record<string, any>;
    expect(answer.content).toEqual(content);
    expect(answer.usage).toEqual(usage);
    expect(answer.id).toBe(`msg_${res.headers.get("x-request-id")!.slice(4)}`);
    const row = (await rows<Record<string, any>>(gw.db, "SELECT * FROM ledger WHERE request_id = ?", res.headers.get("x-request-id")))[0]!;
    expect(row).toMatchObject({ endpoint: "messages", provider: "bedrock", cost });
  });

  test("InvokeModelWithResponseStream: the chunks' Anthropic events relayed with their event lines; usage billed", async () => {
    const events = [
      {
        type: "message_start",
        message: {
          id: "msg_bdrk_02",
          type: "message",
          role: "assistant",
          model: "claude",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: "message_stop", "amazon-bedrock-invocationMetrics": { inputTokenCount: 11 } },
    ];
    fake.queue(eventStream(events.map((e) => frame("chunk", { bytes: Buffer.from(JSON.stringify(e)).toString("base64") }))));
    const res = await post({ ...body, stream: true });
    expect(res.status).toBe(200);
    expect(fake.requests[0]!.path).toBe(`/model/${encodeURIComponent(UPSTREAM_MODEL)}/invoke-with-response-stream`);
    expect(fake.requests[0]!.body.stream).toBeUndefined();
    const text = await res.text();
    const frames = text.split("\n\n").filter(Boolean);
    expect(frames.map((f) => /^event: (.*)$/m.exec(f)?.[1])).toEqual(events.map((e) => e.type));
    const requestId = res.headers.get("x-request-id")!;
    expect(JSON.parse(/^data: (.*)$/m.exec(frames[0]!)![1]!).message.id).toBe(`msg_${requestId.slice(4)}`);
    await expect
      .poll(async () => (await rows<{ cost: number }>(gw.db, "SELECT cost FROM ledger WHERE request_id = ?", requestId))[0]?.cost, { timeout: 3000 })
      .toBe(cost);
  });

  test("a model other than Claude on Bedrock is translated through Converse", async () => {
    fake.queue(converse([{ text: "ok" }], "end_turn", { inputTokens: 4, outputTokens: 1 }));
    const res = await post({ model: "bedrock/nova-lite", max_tokens: 50, messages: [{ role: "user", content: "Hi" }] });
    expect(res.status).toBe(200);
    expect(fake.requests[0]!.path).toBe(`/model/${encodeURIComponent(NOVA)}/converse`);
    expect(((await res.json()) as any).content).toEqual([{ type: "text", text: "ok" }]);
  });
});
