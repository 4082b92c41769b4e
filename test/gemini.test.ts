/**
 * Google's generateContent API on the gateway (docs/gemini.md): native to a Google-format fake
 * (the body arrives byte for byte, the answer and each stream chunk come back unchanged, usage
 * billed exactly from usageMetadata) and translated to an OpenAI-format fake (function-call
 * round trip, system, generationConfig, stream chunks); Google's error envelope, countTokens
 * both ways, the model list, and the key in `?key=` and `x-goog-api-key`.
 */
import { describe, expect, test } from "vitest";
import { costOf } from "../src/core/money.js";
import { usdToNano } from "../src/core/money.js";
import { FAST_RETRY, useGateway } from "./helpers/gateway.js";
import { rows } from "./helpers/rows.js";
import { candidate, response, sse } from "./providers/google.fixture.js";
import { completion, stream } from "./helpers/openai-wire.js";

const PRICES = { prompt: usdToNano("1"), completion: usdToNano("2"), cacheRead: usdToNano("0.25") };

const h = useGateway((fakeUrl) => ({
  server: { compat: "openai" },
  providers: {
    google: { baseUrl: fakeUrl, apiKey: "g-upstream-secret-1234" },
    openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-secret-0000" },
  },
  models: [
    {
      id: "google/gemini-2.5-flash",
      pricing: { prompt: "1", completion: "2", cache_read: "0.25" },
      max_output: 8192,
      endpoints: [{ provider: "google", model: "gemini-2.5-flash-up" }],
    },
    { id: "openai/gpt-4o-mini", pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] },
    {
      id: "acme/thinker",
      pricing: { prompt: "1", completion: "2" },
      capabilities: { reasoning: true },
      endpoints: [{ provider: "openai", model: "o-thinker" }],
    },
  ],
  retry: FAST_RETRY,
  aliases: { "gemini-translated": "openai/gpt-4o-mini" },
}));

const gen = (model: string, body: unknown, opts: { stream?: boolean; headers?: Record<string, string>; query?: string } = {}) =>
  fetch(`${h.gw.url}/v1beta/models/${model}:${opts.stream ? "streamGenerateContent?alt=sse" : "generateContent"}${opts.query ?? ""}`, {
    method: "POST",
    headers: { "x-goog-api-key": h.key, "content-type": "application/json", ...opts.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const ledger = async (res: Response) =>
  (await rows<Record<string, any>>(h.gw.db, "SELECT * FROM ledger WHERE request_id = ?", res.headers.get("x-request-id")))[0]!;

const json = (res: Response) => res.json() as Promise<any>;

/** The `data:` events of an SSE body, parsed. */
const events = (text: string) =>
  text
    .split("\n\n")
    .filter((e) => e.startsWith("data: "))
    .map((e) => JSON.parse(e.slice(6)));

const USAGE = { promptTokenCount: 1200, candidatesTokenCount: 40, thoughtsTokenCount: 100, cachedContentTokenCount: 1000 };

describe("native: routed to Google", () => {
  test("the body arrives byte for byte, the answer comes back unchanged, usage billed exactly (cached and thought tokens)", async () => {
    const raw = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],  "generationConfig":{"thinkingConfig":{"includeThoughts":true,"thinkingBudget":512}},"labels":{"x":"y"},"cachedContent":"cachedContents/abc"}`;
    const answer = response([candidate([{ text: "thinking", thought: true }, { text: "hello" }], "STOP")], USAGE);
    h.fake.queue({ json: answer });
    const res = await gen("gemini-2.5-flash", raw);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(answer);
    const sent = h.fake.requests[0]!;
    expect(sent.path).toBe("/v1beta/models/gemini-2.5-flash-up:generateContent");
    expect(sent.raw).toBe(raw);
    expect(sent.headers["x-goog-api-key"]).toBe("g-upstream-secret-1234");
    const row = await ledger(res);
    expect(row).toMatchObject({ endpoint: "gemini", model: "google/gemini-2.5-flash", prompt_tokens: 1200, completion_tokens: 140, usage_source: "provider" });
    expect(row.cost).toBe(costOf(PRICES, 1200, 140, { read: 1000 }));
  });

  test("a stream is relayed chunk by chunk, billed from the last usageMetadata", async () => {
    const chunks = [
      response([candidate([{ text: "Hel" }])], { promptTokenCount: 10, candidatesTokenCount: 1 }),
      response([candidate([{ text: "lo" }], "STOP")], { promptTokenCount: 10, candidatesTokenCount: 3, thoughtsTokenCount: 5 }),
    ];
    h.fake.queue(sse(chunks));
    const res = await gen("models%2Fgemini-2.5-flash", { contents: [{ parts: [{ text: "hi" }] }] }, { stream: true });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(events(await res.text())).toEqual(chunks);
    expect(h.fake.requests[0]!.path).toBe("/v1beta/models/gemini-2.5-flash-up:streamGenerateContent?alt=sse");
    await expect.poll(async () => (await ledger(res))?.cost).toBe(costOf(PRICES, 10, 8));
  });

  test("countTokens is Google's own count, never billed", async () => {
    h.fake.queue({ json: { totalTokens: 31 } });
    const res = await fetch(`${h.gw.url}/v1beta/models/gemini-2.5-flash:countTokens?key=${h.key}`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ parts: [{ text: "count me" }] }] }),
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ totalTokens: 31 });
    expect(h.fake.requests[0]!.path).toBe("/v1beta/models/gemini-2.5-flash-up:countTokens");
    expect(await rows(h.gw.db, "SELECT * FROM ledger WHERE request_id = ?", res.headers.get("x-request-id"))).toEqual([]);
  });
});

describe("translated: routed to an OpenAI-format provider", () => {
  const weatherTool = {
    functionDeclarations: [
      {
        name: "get_weather",
        description: "Weather in a city",
        parameters: { type: "OBJECT", properties: { city: { type: "STRING" } }, required: ["city"] },
      },
    ],
  };

  test("a function-call round trip: system, tools, generationConfig and the call ids", async () => {
    h.fake.queue(
      completion(
        null,
        { prompt_tokens: 30, completion_tokens: 7 },
        {
          tool_calls: [{ id: "call_abc", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
        },
      ),
    );
    const turn1 = {
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "Weather in Paris?" }] }],
      tools: [weatherTool],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
      generationConfig: {
        temperature: 0.5,
        topP: 0.9,
        topK: 40,
        maxOutputTokens: 300,
        stopSequences: ["END"],
        thinkingConfig: { thinkingLevel: "HIGH", includeThoughts: true },
      },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
    };
    const res = await gen("gemini-translated", turn1);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      candidates: [
        {
          content: { role: "model", parts: [{ functionCall: { id: "call_abc", name: "get_weather", args: { city: "Paris" } } }] },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 7, totalTokenCount: 37 },
      modelVersion: "openai/gpt-4o-mini",
      responseId: expect.any(String),
    });
    expect(h.fake.requests[0]!.path).toBe("/v1/chat/completions");
    expect(h.fake.requests[0]!.body).toMatchObject({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather in a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      temperature: 0.5,
      top_p: 0.9,
      stop: ["END"],
      max_completion_tokens: 300,
    });
    // topK has no OpenAI counterpart, and thinking settings mean nothing to a model that does not reason (the catalog says so).
    expect(h.fake.requests[0]!.body).not.toHaveProperty("top_k");
    expect(h.fake.requests[0]!.body).not.toHaveProperty("reasoning_effort");
    expect((await ledger(res)).cost).toBe(costOf(PRICES, 30, 7));

    // Turn 2: the call as the client echoes it (with the id), its response, and one without an id paired by name.
    h.fake.queue(completion("18C and sunny.", { prompt_tokens: 50, completion_tokens: 5 }));
    const turn2 = {
      ...turn1,
      toolConfig: undefined,
      contents: [
        ...turn1.contents,
        {
          role: "model",
          parts: [
            { functionCall: { id: "call_abc", name: "get_weather", args: { city: "Paris" } } },
            { functionCall: { name: "get_weather", args: { city: "Lyon" } } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "get_weather", response: { output: "18C" } } },
            { functionResponse: { id: "call_abc", name: "get_weather", response: { output: "sunny" } } },
          ],
        },
      ],
    };
    const res2 = await gen("gemini-translated", turn2);
    expect(res2.status, await res2.clone().text()).toBe(200);
    expect((await json(res2)).candidates[0].content.parts).toEqual([{ text: "18C and sunny." }]);
    const messages = h.fake.requests[1]!.body.messages;
    expect(messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_abc", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "gemini_call_1_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Lyon"}' } },
        ],
      },
      { role: "tool", tool_call_id: "gemini_call_1_1", content: '{"output":"18C"}' },
      { role: "tool", tool_call_id: "call_abc", content: '{"output":"sunny"}' },
    ]);
  });

  test("a JSON response schema becomes response_format json_schema; a thinking budget reasoning effort", async () => {
    h.fake.queue(completion('{"a":1}'));
    const res = await gen("acme/thinker", {
      contents: [{ parts: [{ text: "json" }] }],
      generationConfig: {
        responseMimeType: "application/json",
        responseJsonSchema: { type: "OBJECT", properties: { a: { type: "INTEGER" } } },
        thinkingConfig: { thinkingBudget: 20000 },
      },
    });
    expect(res.status).toBe(200);
    expect(h.fake.requests[0]!.body.reasoning_effort).toBe("high");
    expect(h.fake.requests[0]!.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "response", schema: { type: "object", properties: { a: { type: "integer" } } } },
    });
  });

  test("a stream: text chunks, the last with finishReason and usageMetadata; joined it equals the answer", async () => {
    h.fake.queue(stream(["Hel", "lo!"], { prompt_tokens: 9, completion_tokens: 2 }));
    const res = await gen(
      "gemini-translated",
      { contents: [{ parts: [{ text: "hi" }] }] },
      { stream: true, query: `&key=${h.key}`, headers: { "x-goog-api-key": "" } },
    );
    expect(res.status).toBe(200);
    const chunks = events(await res.text());
    expect(chunks.map((c) => c.candidates[0].content.parts.map((p: any) => p.text).join("")).join("")).toBe("Hello!");
    expect(chunks.at(-1)).toMatchObject({
      candidates: [{ finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 2, totalTokenCount: 11 },
    });
    expect(chunks.slice(0, -1).every((c) => !c.usageMetadata && !c.candidates[0].finishReason)).toBe(true);
    expect(h.fake.requests[0]!.body.stream).toBe(true);
    await expect.poll(async () => (await ledger(res))?.cost).toBe(costOf(PRICES, 9, 2));
  });

  test("a field that would change the answer and cannot be honoured is a 400 naming it, before any upstream call", async () => {
    for (const [body, param] of [
      [{ contents: [{ parts: [{ text: "x" }] }], generationConfig: { candidateCount: 2 } }, "generationConfig.candidateCount"],
      [
        { contents: [{ parts: [{ fileData: { fileUri: "https://generativelanguage.googleapis.com/v1beta/files/f", mimeType: "video/mp4" } }] }] },
        "contents.0.parts.0.fileData",
      ],
      [{ contents: [{ parts: [{ text: "x" }] }], tools: [{ googleSearch: {} }] }, "tools.0.googleSearch"],
      [{ contents: [{ parts: [{ text: "x" }] }], cachedContent: "cachedContents/abc" }, "cachedContent"],
    ] as const) {
      const res = await gen("gemini-translated", body);
      expect(res.status).toBe(400);
      const { error } = await json(res);
      expect(error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", type: "invalid_request_error", reason: "unsupported_parameter", param });
      expect(error.message).toContain(param);
    }
    expect(h.fake.requests).toEqual([]);
  });

  test("countTokens without a native endpoint is the gateway's estimate", async () => {
    const res = await fetch(`${h.gw.url}/v1beta/models/gemini-translated:countTokens`, {
      method: "POST",
      headers: { "x-goog-api-key": h.key },
      body: JSON.stringify({ contents: [{ parts: [{ text: "one two three four" }] }] }),
    });
    expect(res.status).toBe(200);
    const { totalTokens } = await json(res);
    expect(totalTokens).toBeGreaterThan(4);
    expect(totalTokens).toBeLessThan(20);
    expect(h.fake.requests).toEqual([]);
  });
});

describe("errors, models and keys on /v1beta", () => {
  test("errors use Google's envelope with the gateway's fields", async () => {
    const noKey = await fetch(`${h.gw.url}/v1beta/models/gemini-2.5-flash:generateContent`, { method: "POST", body: "{}" });
    expect(noKey.status).toBe(401);
    expect((await json(noKey)).error).toEqual({
      code: 401,
      status: "UNAUTHENTICATED",
      message: expect.any(String),
      type: "authentication_error",
      reason: "invalid_api_key",
      request_id: noKey.headers.get("x-request-id"),
    });
    const invalid = await gen("gemini-2.5-flash", { contents: [] });
    expect((await json(invalid)).error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining("contents") });
    const missing = await gen("no-such-model", { contents: [{ parts: [{ text: "x" }] }] });
    expect(missing.status).toBe(404);
    const notFound = (await json(missing)).error;
    expect(notFound).toMatchObject({ code: 404, status: "NOT_FOUND", reason: "model_not_found", param: "model" });
    expect(notFound.message).toContain('aliases: {"no-such-model": vendor/model}');
    const method = await fetch(`${h.gw.url}/v1beta/models/gemini-2.5-flash:embedContent?key=${h.key}`, { method: "POST", body: "{}" });
    expect(method.status).toBe(404);
    expect((await json(method)).error).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });

  test("an upstream failure is a 503 in Google's envelope", async () => {
    h.fake.queue(
      { status: 500, json: { error: { code: 500, message: "secret upstream detail", status: "INTERNAL" } } },
      { status: 500, json: {} },
      { status: 500, json: {} },
    );
    const res = await gen("gemini-2.5-flash", { contents: [{ parts: [{ text: "x" }] }] });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).not.toContain("secret upstream detail");
    expect(JSON.parse(text).error).toMatchObject({ code: 503, status: "UNAVAILABLE", reason: "upstream_unavailable" });
  });

  test("a failure after the first byte ends the stream with one error event in Google's envelope, natively and translated", async () => {
    h.fake.queue(sse([response([candidate([{ text: "Hel" }])]), { error: { code: 500, message: "secret upstream detail", status: "INTERNAL" } }]));
    const native = await gen("gemini-2.5-flash", { contents: [{ parts: [{ text: "hi" }] }] }, { stream: true });
    h.fake.queue(stream(["Hel"], { prompt_tokens: 9, completion_tokens: 2 }, { cut: true, delayMs: 30 }));
    const translated = await gen("gemini-translated", { contents: [{ parts: [{ text: "hi" }] }] }, { stream: true });
    for (const res of [native, translated]) {
      expect(res.status, `${res.url} ${await res.clone().text()}`).toBe(200);
      const text = await res.text();
      expect(text).not.toContain("secret upstream detail");
      const all = events(text);
      expect(all[0].candidates[0].content.parts[0].text).toBe("Hel");
      expect(all.at(-1).error).toMatchObject({ code: 500, status: "INTERNAL", reason: "stream_interrupted", request_id: res.headers.get("x-request-id") });
      await expect.poll(async () => (await ledger(res))?.status).toBe("error");
    }
  });

  test("GET /v1beta/models lists the account's models in Google's shape; one model by name", async () => {
    const res = await fetch(`${h.gw.url}/v1beta/models`, { headers: { "x-goog-api-key": h.key } });
    expect(res.status).toBe(200);
    const { models } = await json(res);
    expect(models).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: "models/gemini-2.5-flash",
          displayName: "google/gemini-2.5-flash",
          outputTokenLimit: 8192,
          supportedGenerationMethods: expect.arrayContaining(["generateContent"]),
        }),
        expect.objectContaining({ name: "models/gpt-4o-mini", displayName: "openai/gpt-4o-mini" }),
        expect.objectContaining({ name: "models/gemini-translated", displayName: "openai/gpt-4o-mini" }),
      ]),
    );
    const one = await fetch(`${h.gw.url}/v1beta/models/gpt-4o-mini?key=${h.key}`);
    expect(await json(one)).toMatchObject({ name: "models/gpt-4o-mini", displayName: "openai/gpt-4o-mini" });
    const none = await fetch(`${h.gw.url}/v1beta/models/nope?key=${h.key}`);
    expect((await json(none)).error).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });

  test("the key in Authorization: Bearer works too; a wrong ?key= is a 401", async () => {
    h.fake.queue({ json: response([candidate([{ text: "ok" }], "STOP")], { promptTokenCount: 1, candidatesTokenCount: 1 }) });
    const bearer = await gen(
      "gemini-2.5-flash",
      { contents: [{ parts: [{ text: "x" }] }] },
      { headers: { "x-goog-api-key": "", authorization: `Bearer ${h.key}` } },
    );
    expect(bearer.status).toBe(200);
    const wrong = await gen("gemini-2.5-flash", { contents: [{ parts: [{ text: "x" }] }] }, { headers: { "x-goog-api-key": "" }, query: "?key=sk-wrong" });
    expect(wrong.status).toBe(401);
  });
});

test("GET /v1/openapi.json describes the Gemini routes from the request schemas", async () => {
  const doc = await json(await fetch(`${h.gw.url}/v1/openapi.json`));
  expect(doc.paths["/v1beta/models/{model}:generateContent"].post.requestBody.content["application/json"].schema).toEqual({
    $ref: "#/components/schemas/GenerateContentRequest",
  });
  expect(doc.components.schemas.GenerateContentRequest.required).toEqual(["contents"]);
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining(["/v1beta/models/{model}:streamGenerateContent", "/v1beta/models/{model}:countTokens", "/v1beta/models"]),
  );
});
