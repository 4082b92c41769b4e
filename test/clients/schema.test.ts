/**
 * The schema check the harness runs on every answer under compat openai must itself be able to
 * fail: bodies shaped as OpenAI's reference pass, broken ones are caught, whether they arrive
 * as JSON, as stream events or as errors, and a client that stops reading a watched stream
 * still hangs up on the server.
 */
import { describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.js";
import { useGateway } from "../helpers/gateway.js";
import { completion, openaiFormatFixture, stream } from "../helpers/openai-wire.js";
import { SchemaWatch, validate } from "../helpers/openai-schema.js";
import { configFor, MODEL, UPSTREAMS } from "./upstreams.js";

const good = () => (completion("Hello!") as { json: any }).json;
const chunk = (choices: unknown[], usage: unknown = null) => ({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices, usage });
const call = { id: "call_1", name: "f", arguments: '{"a":1}' };

describe("the schemas", () => {
  test("bodies shaped as OpenAI's reference validate", () => {
    expect(validate("chat.completion", good())).toEqual([]);
    const toolAnswer = (
      completion(null, undefined, { tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }] }) as { json: any }
    ).json;
    expect(validate("chat.completion", toolAnswer)).toEqual([]);
    const events = [
      ...(stream(["a", "b"]) as { sse: Array<{ data: unknown }> }).sse,
      ...(openaiFormatFixture("openai").streamToolCall(call, { prompt: 1, completion: 1 }) as { sse: Array<{ data: unknown }> }).sse,
    ];
    for (const e of events) expect(validate("chat.completion.chunk", e.data)).toEqual([]);
    expect(
      validate("error", {
        error: { message: "m", type: "invalid_request_error", code: "unsupported_parameter", param: "tools", request_id: `req_${"a".repeat(32)}` },
      }),
    ).toEqual([]);
  });

  test("what OpenAI requires is required", () => {
    const strictShape = good();
    delete strictShape.choices[0].message.refusal;
    delete strictShape.choices[0].logprobs;
    expect(validate("chat.completion", strictShape).join("\n")).toMatch(/refusal/);
    expect(validate("chat.completion", strictShape).join("\n")).toMatch(/logprobs/);
    expect(validate("chat.completion", { ...good(), object: "chat.completion.chunk" })).not.toEqual([]);
    const badFinish = good();
    badFinish.choices[0].finish_reason = "end_turn";
    expect(validate("chat.completion", badFinish)).not.toEqual([]);
    expect(validate("chat.completion", { ...good(), provider: "anthropic" }).join()).toMatch(/provider/);
    expect(
      validate("chat.completion.chunk", chunk([{ index: 0, delta: { tool_calls: [{ id: "call_1", function: { arguments: "" } }] }, finish_reason: null }])),
    ).not.toEqual([]);
    expect(validate("chat.completion.chunk", chunk([{ index: 0, delta: {} }]))).not.toEqual([]);
    expect(validate("error", { error: { message: "m", type: "t", code: null, request_id: `req_${"a".repeat(32)}` } }).join()).toMatch(/param/);
  });
});

describe("the watch on a client's fetch", () => {
  let fake: FakeUpstream;
  const through = async (watch: SchemaWatch) => {
    const res = await watch.fetch(`${fake.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    await res.text();
    return watch.take();
  };

  test("reports a bad completion, a bad chunk, a first tool fragment without its name, an error without param", async () => {
    fake = await startFakeUpstream();
    try {
      const noRefusal = good();
      delete noRefusal.choices[0].message.refusal;
      fake.queue(
        { json: good() },
        { json: noRefusal },
        {
          sse: [
            { data: chunk([{ index: 0, delta: { content: "x" }, finish_reason: "stop" }]) },
            { data: chunk([{ index: 0, delta: { content: 5 }, finish_reason: null }]) },
          ],
        },
        {
          sse: [
            {
              data: chunk([
                { index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { arguments: "" } }] }, finish_reason: null },
              ]),
            },
          ],
        },
        {
          sse: [
            { data: chunk([{ index: 0, delta: { content: "x" }, finish_reason: null }]) },
            { data: { error: { message: "cut", type: "upstream_error", code: "stream_interrupted", param: null, request_id: `req_${"c".repeat(32)}` } } },
          ],
          done: false,
        },
        {
          sse: [
            { data: chunk([{ index: 0, delta: { content: "x" }, finish_reason: null }]) },
            { data: { error: { message: "cut", type: "upstream_error", code: "stream_interrupted", request_id: `req_${"c".repeat(32)}` } } },
          ],
          done: false,
        },
        { status: 400, json: { error: { message: "m", type: "invalid_request_error", code: null, request_id: `req_${"b".repeat(32)}` } } },
      );
      const watch = new SchemaWatch();
      expect(await through(watch)).toEqual([]);
      expect((await through(watch)).join()).toMatch(/refusal/);
      expect((await through(watch)).join()).toMatch(/content must be string/);
      expect((await through(watch)).join()).toMatch(/first fragment of tool call 0:0/);
      expect(await through(watch)).toEqual([]); // the mid-stream error event is the error object, not a chunk
      expect((await through(watch)).join()).toMatch(/param/); // ... and carries param under openai
      expect((await through(watch)).join()).toMatch(/param/);
    } finally {
      await fake.close();
    }
  });

  test("a client that stops reading a watched stream still closes the connection", async () => {
    fake = await startFakeUpstream();
    try {
      fake.queue({ sse: Array.from({ length: 200 }, () => ({ data: chunk([{ index: 0, delta: { content: "x" }, finish_reason: null }]) })), delayMs: 10 });
      const res = await new SchemaWatch().fetch(`${fake.url}/v1/chat/completions`, { method: "POST", body: "{}" });
      const reader = res.body!.getReader();
      await reader.read();
      await reader.cancel();
      await expect.poll(() => fake.aborted, { timeout: 3000 }).toBe(1);
    } finally {
      await fake.close();
    }
  });
});

describe("the harness checks a compat openai gateway's answers", () => {
  const u = UPSTREAMS[0]!;
  const h = useGateway(configFor(u), { body: { model: MODEL, messages: [{ role: "user", content: "hi" }] } });

  test("a non-streamed answer, a stream and an error all go through the check, and pass", async () => {
    expect(h.gw.fetch).not.toBe(globalThis.fetch);
    h.fake.queue(completion("hello"), stream(["hel", "lo"]));
    expect((await h.post()).status).toBe(200);
    await (await h.post({ stream: true })).text();
    expect((await h.post({ temperature: 9 })).status).toBe(400);
    expect(await h.gw.schemaErrors()).toEqual([]);
  });
});
