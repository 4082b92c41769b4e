import { createHash } from "node:crypto";
import { request } from "undici";
import { describe, expect, test } from "vitest";
import plugin from "../../providers/bedrock/index.js";
import { regionOf } from "../../providers/bedrock/credentials.js";
import { describeProvider } from "../helpers/conformance.js";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { expectError } from "../helpers/http.js";
import {
  bedrockError,
  bedrockFixture,
  blockStop,
  bytes,
  concatBytes,
  converse,
  ERROR_MARKER,
  eventStream,
  exceptionFrame,
  messageStart,
  messageStop,
  metadata,
  resign,
  SECRET,
  textDelta,
  toolFrames,
  UPSTREAM_MODEL,
} from "./bedrock.fixture.js";

describeProvider(bedrockFixture);

const KEY_ID = "AKIAIOSFODNN7EXAMPLE";
const TEMP_KEY_ID = "ASIAQNZGKIQY56JQ7WML";
const TOKEN = "IQoJb3JpZ2luX2VjEXAMPLEtoken/+=";
const usage = { inputTokens: 12, outputTokens: 5 };
const hi = [{ role: "user", content: "Hi" }];
const route = (id: string, provider: string) => ({ id, pricing: { prompt: "1", completion: "5" }, endpoints: [{ provider, model: UPSTREAM_MODEL }] });

describe("bedrock adapter", () => {
  const h = useGateway(
    (fakeUrl) => ({
      providers: {
        bedrock: { baseUrl: fakeUrl, apiKey: `${KEY_ID}:${SECRET}`, region: "us-west-2" },
        temp: { plugin: "bedrock", baseUrl: `${fakeUrl}/`, apiKey: `${TEMP_KEY_ID}:${SECRET}:${TOKEN}`, maxTokens: 2048 },
        nosecret: { plugin: "bedrock", baseUrl: fakeUrl, apiKey: KEY_ID },
      },
      models: [route("bedrock/haiku", "bedrock"), route("temp/haiku", "temp"), route("nosecret/haiku", "nosecret")],
      retry: FAST_RETRY,
    }),
    { credits: "1000", body: { model: "bedrock/haiku", messages: hi } },
  );
  const client = () => h.gw.client(h.key);

  test("SigV4: POST /model/{encoded id}/converse, scoped to the region, and the signature verifies over the exact body", async () => {
    h.fake.queue(converse([{ text: "ok" }], "end_turn", usage));
    expect((await h.post({})).status).toBe(200);
    const req = h.fake.requests[0]!;
    expect(req).toMatchObject({ method: "POST", path: "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse" });
    expect(req.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${KEY_ID}/\\d{8}/us-west-2/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$`,
      ),
    );
    expect(req.headers["x-amz-content-sha256"]).toBe(createHash("sha256").update(req.raw).digest("hex"));
    expect(req.headers.authorization).not.toContain(SECRET);
    const credentials = { accessKeyId: KEY_ID, secretAccessKey: SECRET };
    expect(await resign(req, credentials, "us-west-2")).toBe(req.headers.authorization);
    // The check can fail: one changed byte or another secret gives another signature.
    expect(await resign(req, credentials, "us-west-2", `${req.raw} `)).not.toBe(req.headers.authorization);
    expect(await resign(req, { ...credentials, secretAccessKey: "other" }, "us-west-2")).not.toBe(req.headers.authorization);
  });

  test("a session token is sent and signed; the region defaults to us-east-1 off AWS hosts; the maxTokens option applies", async () => {
    h.fake.queue(converse([{ text: "ok" }], "end_turn", usage), converse([{ text: "ok" }], "end_turn", usage));
    expect((await h.post({ model: "temp/haiku" })).status).toBe(200);
    expect((await h.post({ model: "temp/haiku", max_tokens: 10 })).status).toBe(200);
    const [first, second] = h.fake.requests;
    expect(first!.path).toBe("/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse");
    expect(first!.headers["x-amz-security-token"]).toBe(TOKEN);
    expect(first!.headers.authorization).toMatch(
      /\/us-east-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,/,
    );
    expect(await resign(first!, { accessKeyId: TEMP_KEY_ID, secretAccessKey: SECRET, sessionToken: TOKEN }, "us-east-1")).toBe(first!.headers.authorization);
    expect((first!.body as any).inferenceConfig).toEqual({ maxTokens: 2048 });
    expect((second!.body as any).inferenceConfig).toEqual({ maxTokens: 10 });
  });

  test("region: option, then the runtime host name, else us-east-1", () => {
    const at = (baseUrl: string, options: Record<string, unknown> = {}) => regionOf({ baseUrl, options });
    expect(at("https://bedrock-runtime.eu-west-3.amazonaws.com")).toBe("eu-west-3");
    expect(at("https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com/")).toBe("us-gov-west-1");
    expect(at("https://bedrock-runtime.eu-west-3.amazonaws.com", { region: "ap-south-1" })).toBe("ap-south-1");
    expect(at("https://proxy.example.com/bedrock")).toBe("us-east-1");
  });

  test("a key without its secret never reaches AWS, is a misconfiguration (502 upstream_auth_failed), and is never echoed", async () => {
    const res = await h.post({ model: "nosecret/haiku" });
    await expectError(res.clone(), 502, "upstream_error", "upstream_auth_failed");
    expect(await res.text()).not.toContain(KEY_ID);
    expect(h.fake.requests).toHaveLength(0);
  });

  test("translation: system blocks, alternating turns with merged tool results, declared tools, clamped temperature", async () => {
    h.fake.queue(converse([{ text: "ok" }], "end_turn", usage), converse([{ text: "ok" }], "end_turn", usage));
    const calls = [
      { id: "tooluse_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: "tooluse_b", type: "function", function: { name: "get_time", arguments: "" } },
    ];
    const res = await h.post({
      messages: [
        { role: "system", content: "Be terse." },
        { role: "user", content: "Weather?" },
        { role: "system", content: "Use tools." },
        { role: "assistant", content: "Checking.", tool_calls: calls },
        { role: "tool", tool_call_id: "tooluse_a", content: '{"temp":21}' },
        { role: "tool", tool_call_id: "tooluse_b", content: "12:00" },
        { role: "user", content: "Thanks" },
      ],
      temperature: 1.7,
      top_p: 0.9,
      stop: "END",
      max_tokens: 64,
      n: 1,
      frequency_penalty: 0,
      presence_penalty: 0,
    });
    expect(res.status).toBe(200);
    expect(h.sent()).toEqual({
      system: [{ text: "Be terse." }, { text: "Use tools." }],
      messages: [
        { role: "user", content: [{ text: "Weather?" }] },
        {
          role: "assistant",
          content: [
            { text: "Checking." },
            { toolUse: { toolUseId: "tooluse_a", name: "get_weather", input: { city: "Paris" } } },
            { toolUse: { toolUseId: "tooluse_b", name: "get_time", input: {} } },
          ],
        },
        {
          role: "user",
          content: [
            { toolResult: { toolUseId: "tooluse_a", content: [{ text: '{"temp":21}' }] } },
            { toolResult: { toolUseId: "tooluse_b", content: [{ text: "12:00" }] } },
            { text: "Thanks" },
          ],
        },
      ],
      inferenceConfig: { maxTokens: 64, temperature: 1, topP: 0.9, stopSequences: ["END"] },
      toolConfig: { tools: ["get_weather", "get_time"].map((name) => ({ toolSpec: { name, inputSchema: { json: { type: "object" } } } })) },
    });
    expect((await h.post({})).status).toBe(200);
    expect(h.sent()).toEqual({ messages: [{ role: "user", content: [{ text: "Hi" }] }] });
  });

  test.each([
    ["n", { n: 2 }],
    ["seed", { seed: 7 }],
    ["frequency_penalty", { frequency_penalty: 0.5 }],
    ["presence_penalty", { presence_penalty: -1 }],
  ])("%s cannot be honoured: 400 unsupported_parameter, nothing sent", async (field, extra) => {
    const error = await expectError(await h.post(extra), 400, "invalid_request_error", "unsupported_parameter");
    expect(error.message).toContain(field);
    expect(h.fake.requests).toHaveLength(0);
  });

  test("tool arguments that are not JSON: 400 naming the field, nothing sent", async () => {
    const bad = [
      { role: "user", content: "x" },
      { role: "assistant", tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{oops" } }] },
    ];
    const error = await expectError(await h.post({ messages: bad }), 400, "invalid_request_error", null);
    expect(error.message).toContain("messages.1.tool_calls.0.function.arguments");
    expect(h.fake.requests).toHaveLength(0);
  });

  test.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["guardrail_intervened", "stop"],
    ["content_filtered", "stop"],
    ["max_tokens", "length"],
    ["model_context_window_exceeded", "length"],
    ["tool_use", "tool_calls"],
  ])("stopReason %s -> finish_reason %s", async (stopReason, finish) => {
    h.fake.queue(converse([{ text: "x" }], stopReason, usage));
    const r = await client().chat.completions.create({ model: "bedrock/haiku", messages: [{ role: "user", content: "x" }] });
    expect(r.choices[0]!.finish_reason).toBe(finish);
  });

  test("usage: inputTokens excludes cache reads and writes, so the prompt is their sum (response and stream)", async () => {
    const cached = { inputTokens: 10, outputTokens: 7, cacheReadInputTokens: 100, cacheWriteInputTokens: 50 };
    const expected = { prompt_tokens: 160, completion_tokens: 7, total_tokens: 167, prompt_tokens_details: { cached_tokens: 100 } };
    h.fake.queue(converse([{ text: "x" }], "end_turn", cached));
    expect((await client().chat.completions.create({ model: "bedrock/haiku", messages: [{ role: "user", content: "x" }] })).usage).toEqual(expected);
    h.fake.queue(eventStream([messageStart(), textDelta("x"), blockStop(), messageStop("end_turn"), metadata(cached)]));
    let last: unknown;
    for await (const c of await client().chat.completions.create({ model: "bedrock/haiku", messages: [{ role: "user", content: "x" }], stream: true }))
      last = c.usage ?? last;
    expect(last).toEqual(expected);
    expect(h.fake.requests.at(-1)!.path).toBe("/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream");
  });

  test("text and two tool calls in one answer, in order", async () => {
    const a = { id: "tooluse_1", name: "get_weather", arguments: '{"city":"Oslo"}' };
    const b = { id: "tooluse_2", name: "get_time", arguments: '{"tz":"CET"}' };
    h.fake.queue(
      converse(
        [{ text: "Let me check." }, ...[a, b].map((c) => ({ toolUse: { toolUseId: c.id, name: c.name, input: JSON.parse(c.arguments) } }))],
        "tool_use",
        usage,
      ),
    );
    const r = await client().chat.completions.create({ model: "bedrock/haiku", messages: [{ role: "user", content: "x" }] });
    expect(r.choices[0]!.message).toMatchObject({
      content: "Let me check.",
      tool_calls: [a, b].map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
    });

    // Streamed: a text block, then two tool-use blocks; frames split across network chunks, one inside a prelude.
    const frames = [messageStart(), textDelta("Checking", 0), blockStop(0), ...toolFrames(a, 1), ...toolFrames(b, 2), messageStop("tool_use"), metadata(usage)];
    const raw = concatBytes(frames);
    const cuts = [2, frames[0]!.length + 9, raw.length - 5, raw.length];
    h.fake.queue(
      eventStream(
        frames,
        cuts.map((end, i) => raw.subarray(cuts[i - 1] ?? 0, end)),
        15,
      ),
    );
    let text = "";
    let finish: string | null = null;
    const calls: Array<{ id?: string; name: string; arguments: string }> = [];
    for await (const c of await client().chat.completions.create({ model: "bedrock/haiku", messages: [{ role: "user", content: "x" }], stream: true })) {
      text += c.choices[0]?.delta?.content ?? "";
      finish = c.choices[0]?.finish_reason ?? finish;
      for (const t of c.choices[0]?.delta?.tool_calls ?? []) {
        const cur = (calls[t.index] ??= { name: "", arguments: "" });
        if (t.id) cur.id = t.id;
        cur.name += t.function?.name ?? "";
        cur.arguments += t.function?.arguments ?? "";
      }
    }
    expect({ text, finish, calls }).toEqual({ text: "Checking", finish: "tool_calls", calls: [a, b] });
  });

  test("decodeStream reassembles frames fed one byte at a time and rejects a truncated frame", async () => {
    const raw = concatBytes([messageStart(), textDelta("Hi"), messageStop("end_turn")]);
    const events = [];
    for await (const e of plugin.decodeStream!(bytes(raw, 1))) events.push(e);
    expect(events).toMatchObject([
      { event: "messageStart", data: { role: "assistant" } },
      { event: "contentBlockDelta", data: { contentBlockIndex: 0, delta: { text: "Hi" } } },
      { event: "messageStop", data: { stopReason: "end_turn" } },
    ]);
    const cut = async () => {
      for await (const _ of plugin.decodeStream!(bytes(raw.subarray(0, raw.length - 3), 64)));
    };
    await expect(cut()).rejects.toThrow();
  });

  test("an exception frame after output ends the stream with an error event, no [DONE], no upstream detail", async () => {
    h.fake.queue(eventStream([messageStart(), textDelta("partial"), exceptionFrame("modelStreamErrorException")]));
    const res = await h.post({ stream: true });
    const body = await res.text();
    expect(body).toContain('"content":"partial"');
    expect(body).toMatch(/data: \{"error":\{/);
    expect(body).not.toContain("[DONE]");
    expect(body).not.toContain(ERROR_MARKER);
  });

  test("an exception before any output fails over (throttling) or is a 400 (validation)", async () => {
    h.fake.queue(eventStream([messageStart(), exceptionFrame("throttlingException")]), bedrockFixture.stream(["ok"], { prompt: 3, completion: 1 }));
    let text = "";
    for await (const c of await client().chat.completions.create({ model: "bedrock/haiku", messages: [{ role: "user", content: "x" }], stream: true }))
      text += c.choices[0]?.delta?.content ?? "";
    expect(text).toBe("ok");
    expect(h.fake.requests).toHaveLength(2);
    h.fake.requests.length = 0;
    h.fake.queue(eventStream([messageStart(), exceptionFrame("validationException")]));
    await expectError(await h.post({ stream: true }), 400, "invalid_request_error", "upstream_rejected");
    expect(h.fake.requests).toHaveLength(1);
  });

  test("424 ModelErrorException is retried", async () => {
    h.fake.queue(bedrockError(424), converse([{ text: "ok" }], "end_turn", usage));
    expect((await h.post({})).status).toBe(200);
    expect(h.fake.requests).toHaveLength(2);
  });

  test("models: signed GET /foundation-models on the control plane; text + on-demand only", async () => {
    const settings = {
      id: "bedrock",
      plugin: "bedrock",
      baseUrl: h.fake.url,
      apiKey: `${KEY_ID}:${SECRET}`,
      options: { region: "eu-central-1", controlUrl: h.fake.url },
    };
    const fallback = await plugin.models!.request({ settings: { ...settings, options: { region: "eu-central-1" } }, apiKey: settings.apiKey });
    expect(fallback.url).toBe("https://bedrock.eu-central-1.amazonaws.com/foundation-models");
    const summary = (modelId: string, out: string, types: string[]) => ({
      modelId,
      modelArn: `arn:aws:bedrock:eu-central-1::foundation-model/${modelId}`,
      providerName: "x",
      inputModalities: ["TEXT"],
      outputModalities: [out],
      inferenceTypesSupported: types,
      responseStreamingSupported: true,
      customizationsSupported: [],
      modelLifecycle: { status: "ACTIVE" },
    });
    h.fake.queue({
      json: {
        modelSummaries: [
          summary(UPSTREAM_MODEL, "TEXT", ["ON_DEMAND"]),
          summary("amazon.titan-embed-text-v2:0", "EMBEDDING", ["ON_DEMAND"]),
          summary("anthropic.claude-sonnet-4-20250514-v1:0", "TEXT", ["INFERENCE_PROFILE"]),
          summary("stability.sd3-large-v1:0", "IMAGE", ["ON_DEMAND"]),
        ],
      },
    });
    const req = await plugin.models!.request({ settings, apiKey: settings.apiKey });
    const res = await request(req.url, { method: req.method, headers: req.headers });
    expect(plugin.models!.response(await res.body.json())).toEqual([{ id: UPSTREAM_MODEL }]);
    const seen = h.fake.requests[0]!;
    expect(seen).toMatchObject({ method: "GET", path: "/foundation-models" });
    expect(seen.headers.authorization).toMatch(
      new RegExp(`Credential=${KEY_ID}/\\d{8}/eu-central-1/bedrock/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date,`),
    );
    expect(await resign(seen, { accessKeyId: KEY_ID, secretAccessKey: SECRET }, "eu-central-1")).toBe(seen.headers.authorization);
  });
});
