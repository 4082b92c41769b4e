import { describe, expect, test } from "vitest";
import google from "../../providers/google/index.js";
import { describeProvider } from "../helpers/conformance.js";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { candidate, error, functionCallPart, googleFixture, keyInvalid, response, seenGemini, sse } from "./google.fixture.js";

describeProvider(googleFixture);

const KEY = "AIzaSy-upstream-google-test-7e1";
const pricing = { prompt: "1", completion: "2" };
const model = (id: string, endpoints: Array<{ provider: string; model: string }>) => ({ id, pricing, order: "fixed", endpoints });

describe("google adapter specifics", () => {
  const h = useGateway((fakeUrl) => ({
    providers: {
      gemini: { plugin: "google", baseUrl: fakeUrl, apiKey: KEY },
      badkey: { plugin: "google", baseUrl: `${fakeUrl}/bad`, apiKey: "AIza-revoked" },
      backup: { plugin: "google", baseUrl: `${fakeUrl}/backup`, apiKey: KEY, apiVersion: "v1" },
    },
    models: [
      model("google/flash", [{ provider: "gemini", model: "gemini-2.5-flash" }]),
      model("google/flash-2.0", [{ provider: "gemini", model: "gemini-2.0-flash" }]),
      model("google/pro-3", [{ provider: "gemini", model: "gemini-3-pro-preview" }]),
      model("google/failover", [
        { provider: "badkey", model: "gemini-2.5-flash" },
        { provider: "backup", model: "gemini-2.5-flash" },
      ]),
    ],
    retry: FAST_RETRY,
  }));

  const chat = (body: Record<string, unknown>) => h.gw.client(h.key).chat.completions.create({ model: "google/flash", ...body } as never) as Promise<any>;
  const ok = (text = "ok") => ({ json: response([candidate([{ text }], "STOP")], { promptTokenCount: 3, candidatesTokenCount: 1 }) });
  async function collect(stream: AsyncIterable<any>) {
    const out = { text: "", calls: [] as any[], finish: null as string | null, usage: undefined as unknown };
    for await (const c of stream) {
      out.text += c.choices[0]?.delta?.content ?? "";
      out.calls.push(...(c.choices[0]?.delta?.tool_calls ?? []));
      out.finish = c.choices[0]?.finish_reason ?? out.finish;
      out.usage = c.usage ?? out.usage;
    }
    return out;
  }

  test("the key goes in x-goog-api-key and never in the URL; stream uses streamGenerateContent?alt=sse", async () => {
    h.fake.queue(ok(), sse([response([candidate([{ text: "s" }], "STOP")], { promptTokenCount: 1, candidatesTokenCount: 1 })]));
    await chat({ messages: [{ role: "user", content: "Hi" }] });
    await collect(await chat({ messages: [{ role: "user", content: "Hi" }], stream: true }));
    const [plain, streamed] = h.fake.requests;
    expect(plain!.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(streamed!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    for (const r of [plain!, streamed!]) {
      expect(r.headers["x-goog-api-key"]).toBe(KEY);
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.path).not.toContain(KEY);
      expect(r.path).not.toContain("key=");
    }
  });

  test("system messages, merged turns and generationConfig; n candidates come back as choices", async () => {
    h.fake.queue({
      json: response([candidate([{ text: "A" }], "STOP", 0), candidate([{ text: "B" }], "MAX_TOKENS", 1)], { promptTokenCount: 9, candidatesTokenCount: 4 }),
    });
    const r = await chat({
      messages: [
        { role: "system", content: "Be terse." },
        { role: "system", content: "Answer in French." },
        { role: "user", content: "One" },
        { role: "user", content: "Two" },
      ],
      top_p: 0.9,
      n: 2,
      seed: 42,
      stop: "END",
      max_tokens: 64,
      temperature: 1.7,
    });
    expect(r.choices.map((c: any) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, "A", "stop"],
      [1, "B", "length"],
    ]);
    const body = h.sent();
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Be terse." }, { text: "Answer in French." }] });
    expect(body.contents).toEqual([{ role: "user", parts: [{ text: "One" }, { text: "Two" }] }]);
    expect(body.generationConfig).toEqual({ temperature: 1.7, topP: 0.9, maxOutputTokens: 64, stopSequences: ["END"], candidateCount: 2, seed: 42 });
    expect(body.tools).toBeUndefined();
  });

  test("penalties pass to models that take them, are a clear 400 on those that do not, and 0 is left out", async () => {
    h.fake.queue(ok(), ok());
    await chat({ model: "google/flash-2.0", messages: [{ role: "user", content: "x" }], presence_penalty: 0.5, frequency_penalty: -0.25 });
    expect(h.sent().generationConfig).toEqual({ presencePenalty: 0.5, frequencyPenalty: -0.25 });
    await chat({ messages: [{ role: "user", content: "x" }], presence_penalty: 0, frequency_penalty: 0 });
    expect(h.sent().generationConfig).toBeUndefined();
    h.fake.requests.length = 0;
    const res = await h.post({ model: "google/flash", messages: [{ role: "user", content: "x" }], frequency_penalty: 1 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ type: "invalid_request_error", code: "unsupported_parameter" });
    const tooMany = await h.post({ model: "google/flash", messages: [{ role: "user", content: "x" }], n: 9 });
    expect(tooMany.status).toBe(400);
    expect(h.fake.requests).toHaveLength(0);
  });

  test("parallel tool history: functionCall parts in one model turn, results paired by name and id in one user turn", async () => {
    h.fake.queue(ok("Both done"));
    const r = await chat({
      messages: [
        { role: "user", content: "Weather and time in Paris?" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: "call_w", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_t", type: "function", function: { name: "get_time", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "call_w", content: "sunny" },
        { role: "tool", tool_call_id: "call_t", content: "[12,30]" },
        { role: "user", content: "Thanks" },
      ],
    });
    expect(r.choices[0].message.content).toBe("Both done");
    const body = h.sent();
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather and time in Paris?" }] },
      {
        role: "model",
        parts: [
          { text: "Checking." },
          { functionCall: { id: "call_w", name: "get_weather", args: { city: "Paris" } } },
          { functionCall: { id: "call_t", name: "get_time", args: {} } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { id: "call_w", name: "get_weather", response: { content: "sunny" } } },
          { functionResponse: { id: "call_t", name: "get_time", response: { content: [12, 30] } } },
          { text: "Thanks" },
        ],
      },
    ]);
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: "get_weather", parametersJsonSchema: { type: "object" } },
          { name: "get_time", parametersJsonSchema: { type: "object" } },
        ],
      },
    ]);
  });

  test("Gemini 3 history carries Google's sentinel thought signature on replayed function calls", async () => {
    h.fake.queue(ok());
    await chat({
      model: "google/pro-3",
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: '{"a":1}' } }] },
        { role: "tool", tool_call_id: "call_1", content: '{"r":2}' },
      ],
    });
    expect(h.fake.requests[0]!.path).toBe("/v1beta/models/gemini-3-pro-preview:generateContent");
    expect(h.sent().contents[1]).toEqual({
      role: "model",
      parts: [{ functionCall: { id: "call_1", name: "f", args: { a: 1 } }, thoughtSignature: "skip_thought_signature_validator" }],
    });
  });

  test("a tool result whose id matches no earlier tool call is a 400 and is never sent", async () => {
    const res = await h.post({
      model: "google/flash",
      messages: [
        { role: "user", content: "q" },
        { role: "tool", tool_call_id: "call_nowhere", content: "x" },
      ],
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe("unsupported_parameter");
    expect(h.fake.requests).toHaveLength(0);
  });

  test("usage: cached tokens stay inside the prompt, thoughts and tool-use prompts are added once", async () => {
    h.fake.queue({
      json: response([candidate([{ text: "ok" }], "STOP")], {
        promptTokenCount: 100,
        cachedContentTokenCount: 60,
        toolUsePromptTokenCount: 5,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 30,
      }),
    });
    const r = await chat({ messages: [{ role: "user", content: "x" }] });
    expect(r.usage).toEqual({
      prompt_tokens: 105,
      completion_tokens: 50,
      total_tokens: 155,
      prompt_tokens_details: { cached_tokens: 60 },
      completion_tokens_details: { reasoning_tokens: 30 },
    });
  });

  test("finish reasons: MAX_TOKENS is length, function calls are tool_calls, every other reason stops", async () => {
    const table: Array<[string, string]> = [
      ["STOP", "stop"],
      ["MAX_TOKENS", "length"],
      ["SAFETY", "stop"],
      ["RECITATION", "stop"],
      ["OTHER", "stop"],
      ["BLOCKLIST", "stop"],
      ["PROHIBITED_CONTENT", "stop"],
      ["SPII", "stop"],
      ["MALFORMED_FUNCTION_CALL", "stop"],
    ];
    for (const [wire, expected] of table) {
      h.fake.queue({ json: response([candidate([{ text: "t" }], wire)], { promptTokenCount: 2, candidatesTokenCount: 1 }) });
      const r = await chat({ messages: [{ role: "user", content: "x" }] });
      expect([wire, r.choices[0].finish_reason]).toEqual([wire, expected]);
    }
  });

  test("several function calls without ids get distinct generated ids; thought parts never reach content", async () => {
    h.fake.queue({
      json: response(
        [
          candidate(
            [
              { text: "planning the calls", thought: true },
              functionCallPart({ name: "a", arguments: '{"x":1}' }),
              functionCallPart({ name: "b", arguments: "{}" }),
            ],
            "STOP",
          ),
        ],
        { promptTokenCount: 5, candidatesTokenCount: 8, thoughtsTokenCount: 4 },
      ),
    });
    const r = await chat({ messages: [{ role: "user", content: "x" }] });
    const calls = r.choices[0].message.tool_calls;
    expect(r.choices[0].finish_reason).toBe("tool_calls");
    expect(r.choices[0].message.content).toBeNull();
    expect(calls.map((c: any) => [c.type, c.function.name, c.function.arguments])).toEqual([
      ["function", "a", '{"x":1}'],
      ["function", "b", "{}"],
    ]);
    expect(calls[0].id).toMatch(/^call_\w+$/);
    expect(calls[1].id).toMatch(/^call_\w+$/);
    expect(calls[0].id).not.toBe(calls[1].id);
    expect(r.usage).toEqual({ prompt_tokens: 5, completion_tokens: 12, total_tokens: 17, completion_tokens_details: { reasoning_tokens: 4 } });
  });

  test("stream: usage is the running total (last wins), thoughts count as completion, thought text is not content", async () => {
    h.fake.queue(
      sse([
        response([candidate([{ text: "**Thinking**", thought: true }])], { promptTokenCount: 28, thoughtsTokenCount: 70 }),
        response([candidate([{ text: "Hello" }])], { promptTokenCount: 28, candidatesTokenCount: 2, thoughtsTokenCount: 90 }),
        response([candidate([{ text: " there" }], "STOP")], { promptTokenCount: 28, candidatesTokenCount: 4, thoughtsTokenCount: 90 }),
      ]),
    );
    const out = await collect(await chat({ messages: [{ role: "user", content: "x" }], stream: true }));
    expect(out.text).toBe("Hello there");
    expect(out.finish).toBe("stop");
    expect(out.usage).toEqual({ prompt_tokens: 28, completion_tokens: 94, total_tokens: 122, completion_tokens_details: { reasoning_tokens: 90 } });
  });

  test("stream: parallel function calls get indices 0 and 1; a finish on a later chunk is still tool_calls", async () => {
    h.fake.queue(
      sse([
        response([candidate([functionCallPart({ id: "fc_1", name: "a", arguments: '{"q":"x"}' }), functionCallPart({ name: "b", arguments: '{"n":2}' })])], {
          promptTokenCount: 7,
        }),
        response([candidate([{ text: "", thoughtSignature: "AY89a18iOcFus5wr" }], "STOP")], { promptTokenCount: 7, candidatesTokenCount: 12 }),
      ]),
    );
    const out = await collect(await chat({ messages: [{ role: "user", content: "x" }], stream: true }));
    expect(out.calls.map((c) => [c.index, c.function.name, c.function.arguments])).toEqual([
      [0, "a", '{"q":"x"}'],
      [1, "b", '{"n":2}'],
    ]);
    expect(out.calls[0].id).toBe("fc_1");
    expect(out.calls[1].id).toMatch(/^call_\w+$/);
    expect(out.finish).toBe("tool_calls");
    expect(out.usage).toEqual({ prompt_tokens: 7, completion_tokens: 12, total_tokens: 19 });
  });

  test("a blocked prompt (promptFeedback, no candidates) is an empty answer that stopped, streamed or not", async () => {
    const blocked = { promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 6, totalTokenCount: 6 }, modelVersion: "gemini-2.5-flash" };
    h.fake.queue({ json: blocked }, sse([blocked]));
    const r = await chat({ messages: [{ role: "user", content: "x" }] });
    expect([r.choices[0].message.content, r.choices[0].finish_reason]).toEqual(["", "stop"]);
    expect(r.usage).toEqual({ prompt_tokens: 6, completion_tokens: 0, total_tokens: 6 });
    const out = await collect(await chat({ messages: [{ role: "user", content: "x" }], stream: true }));
    expect([out.text, out.finish]).toEqual(["", "stop"]);
    expect(out.usage).toEqual({ prompt_tokens: 6, completion_tokens: 0, total_tokens: 6 });
  });

  test("400 API_KEY_INVALID marks the key rejected and fails over instead of blaming the client", async () => {
    h.fake.queue(keyInvalid(), ok("from backup"));
    const r = await chat({ model: "google/failover", messages: [{ role: "user", content: "x" }] });
    expect(r.choices[0].message.content).toBe("from backup");
    expect(h.fake.requests.map((q) => q.path)).toEqual([
      "/bad/v1beta/models/gemini-2.5-flash:generateContent",
      "/backup/v1/models/gemini-2.5-flash:generateContent",
    ]);
    const health = (await (await fetch(`${h.gw.url}/v1/health/providers`)).json()) as { providers: Array<{ id: string; status: string }> };
    expect(health.providers.find((p) => p.id === "badkey")?.status).toBe("misconfigured");
    expect(health.providers.find((p) => p.id === "backup")?.status).toBe("healthy");
  });

  test("404 NOT_FOUND is the client's 400 and is not retried; 503 UNAVAILABLE is retried", async () => {
    h.fake.queue(error(404));
    const res = await h.post({ model: "google/flash", messages: [{ role: "user", content: "x" }] });
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain("gemini-error-marker");
    expect(h.fake.requests).toHaveLength(1);
    h.fake.requests.length = 0;
    h.fake.queue(error(503), ok("second try"));
    const r = await chat({ messages: [{ role: "user", content: "x" }] });
    expect(r.choices[0].message.content).toBe("second try");
    expect(h.fake.requests).toHaveLength(2);
  });

  test("models: lists generateContent models from GET /v1beta/models with the key in a header", async () => {
    h.fake.queue({
      json: {
        models: [
          {
            name: "models/gemini-2.5-flash",
            version: "001",
            displayName: "Gemini 2.5 Flash",
            inputTokenLimit: 1048576,
            outputTokenLimit: 65536,
            supportedGenerationMethods: ["generateContent", "countTokens", "createCachedContent", "batchGenerateContent"],
            temperature: 1,
            topP: 0.95,
            topK: 64,
            maxTemperature: 2,
            thinking: true,
          },
          {
            name: "models/gemini-embedding-001",
            version: "001",
            inputTokenLimit: 2048,
            outputTokenLimit: 1,
            supportedGenerationMethods: ["embedContent", "countTextTokens"],
          },
          {
            name: "models/gemini-2.0-flash",
            version: "2.0",
            inputTokenLimit: 1048576,
            outputTokenLimit: 8192,
            supportedGenerationMethods: ["generateContent", "countTokens"],
          },
        ],
      },
    });
    const settings = { id: "gemini", plugin: "google", baseUrl: h.fake.url, apiKey: KEY, options: {} };
    const req = await google.models!.request({ settings, apiKey: KEY });
    const res = await fetch(req.url, { method: req.method, headers: req.headers });
    expect(google.models!.response(await res.json())).toEqual([
      { id: "gemini-2.5-flash", contextLength: 1048576, maxOutput: 65536 },
      { id: "gemini-2.0-flash", contextLength: 1048576, maxOutput: 8192 },
    ]);
    expect(h.fake.requests[0]).toMatchObject({ method: "GET", path: "/v1beta/models?pageSize=1000" });
    expect(h.fake.requests[0]!.headers["x-goog-api-key"]).toBe(KEY);
    expect(google.models!.response({})).toEqual([]);
  });

  test("the fixture reader sees what the gateway sent", async () => {
    h.fake.queue(ok());
    await chat({
      messages: [
        { role: "system", content: "S" },
        { role: "user", content: "U" },
      ],
      max_tokens: 5,
    });
    expect(seenGemini(h.fake.requests[0]!)).toMatchObject({ system: "S", maxTokens: 5, model: "gemini-2.5-flash", messages: [{ role: "user", text: "U" }] });
  });
});

describe("google classifyError", () => {
  const classify = google.classifyError!;
  test.each([
    [400, { error: { code: 400, status: "INVALID_ARGUMENT", message: "bad" } }, { retryable: false }],
    [400, (keyInvalid() as { json: unknown }).json, { retryable: true, keyRejected: true }],
    [400, { error: { code: 400, status: "FAILED_PRECONDITION", message: "enable billing" } }, { retryable: true, keyRejected: true }],
    [401, { error: { code: 401, status: "UNAUTHENTICATED" } }, { retryable: true, keyRejected: true }],
    [402, { error: { code: 402, status: "RESOURCE_EXHAUSTED" } }, { retryable: true, keyRejected: true }],
    [403, { error: { code: 403, status: "PERMISSION_DENIED" } }, { retryable: true, keyRejected: true }],
    [404, { error: { code: 404, status: "NOT_FOUND" } }, { retryable: false }],
    [429, { error: { code: 429, status: "RESOURCE_EXHAUSTED" } }, { retryable: true }],
    [500, { error: { code: 500, status: "INTERNAL" } }, { retryable: true }],
    [503, { error: { code: 503, status: "UNAVAILABLE" } }, { retryable: true }],
    [504, { error: { code: 504, status: "DEADLINE_EXCEEDED" } }, { retryable: true }],
    [502, "<html>bad gateway</html>", { retryable: true }],
  ])("%i %j", (status, body, expected) => {
    expect(classify(status, body)).toEqual(expected);
  });
});
