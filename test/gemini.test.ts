/**
 * Google's generateContent API on the gateway (docs/gemini.md): native to a Google-format fake
 * (the body arrives byte for byte, the answer and each stream chunk come back unchanged, usage
 * billed exactly from usageMetadata; countTokens is Google's) and translated to an OpenAI-format
 * fake (function-call round trip, system, generationConfig, stream chunks, the 400s, the
 * estimated countTokens). Errors, the model list and keys: test/gemini-errors.test.ts.
 */
import { describe, expect, test } from "vitest";
import { costOf } from "../src/core/money.js";
import { events, geminiSuite, json, PRICES } from "./helpers/gemini.js";
import { rows } from "./helpers/rows.js";
import { candidate, response, sse } from "./providers/google.fixture.js";
import { completion, stream } from "./helpers/openai-wire.js";

const { h, gen, ledger } = geminiSuite();

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
    const counted = { totalTokens: 31, cachedContentTokenCount: 0, promptTokensDetails: [{ modality: "TEXT", tokenCount: 31 }] };
    h.fake.queue({ json: counted });
    const res = await fetch(`${h.gw.url}/v1beta/models/gemini-2.5-flash:countTokens?key=${h.key}`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ parts: [{ text: "count me" }] }] }),
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(counted);
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
    // A provider without a reasoning switch: the thinking level is a hint, dropped, not a 400.
    h.fake.queue(completion("ok"));
    const local = await gen("acme/llama", { contents: [{ parts: [{ text: "x" }] }], generationConfig: { thinkingConfig: { thinkingLevel: "HIGH" } } });
    expect(local.status).toBe(200);
    expect(h.fake.requests[1]!.path).toBe("/local/v1/chat/completions");
    expect(h.fake.requests[1]!.body).not.toHaveProperty("reasoning_effort");
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
