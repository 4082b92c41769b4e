/**
 * Google's routes beyond the answer (docs/gemini.md): errors in Google's envelope with the
 * gateway's fields (before and after a stream started), the model list, the key in
 * `x-goog-api-key`, `?key=` or Bearer, and the OpenAPI part.
 */
import { describe, expect, test } from "vitest";
import { events, geminiSuite, json } from "./helpers/gemini.js";
import { candidate, response, sse } from "./providers/google.fixture.js";
import { completion, stream } from "./helpers/openai-wire.js";

const { h, gen, ledger } = geminiSuite();

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
    const method = await fetch(`${h.gw.url}/v1beta/models/gemini-2.5-flash:predict?key=${h.key}`, { method: "POST", body: "{}" });
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

  test("402 and 429 in Google's terms; countTokens is never billed but counts against the key's rate limit", async () => {
    const broke = await h.gw.createKey({ account: "broke" });
    const poor = await gen("gemini-2.5-flash", { contents: [{ parts: [{ text: "x" }] }] }, { headers: { "x-goog-api-key": broke } });
    expect(poor.status).toBe(402);
    expect((await json(poor)).error).toMatchObject({ code: 402, status: "FAILED_PRECONDITION", type: "insufficient_credits" });

    const limited = await h.gw.createKey({ rpm: 2 });
    const count = () =>
      fetch(`${h.gw.url}/v1beta/models/gemini-translated:countTokens`, {
        method: "POST",
        headers: { "x-goog-api-key": limited },
        body: JSON.stringify({ contents: [{ parts: [{ text: "x" }] }] }),
      });
    expect((await count()).status).toBe(200);
    expect((await count()).status).toBe(200);
    const third = await count();
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBeTruthy();
    expect((await json(third)).error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED", reason: "rate_limited" });
    expect(h.fake.requests).toEqual([]);
  });

  test("contents and parts are bounded before validation", async () => {
    const parts = Array.from({ length: 20_001 }, () => ({ text: "x" }));
    const res = await gen("gemini-2.5-flash", { contents: [{ parts }] });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", reason: "request_too_large", param: "contents" });
  });

  test("failover crosses paths: Google fails, the OpenAI-format endpoint answers, rendered in Google's shape", async () => {
    h.fake.queue(
      { status: 503, json: { error: { code: 503, message: "overloaded", status: "UNAVAILABLE" } } },
      completion("from the second", { prompt_tokens: 5, completion_tokens: 3 }),
    );
    const res = await gen("acme/both", { contents: [{ parts: [{ text: "x" }] }] });
    expect(res.status).toBe(200);
    expect((await json(res)).candidates[0].content.parts).toEqual([{ text: "from the second" }]);
    expect(h.fake.requests.map((r) => r.path)).toEqual(["/v1beta/models/gemini-first:generateContent", "/v1/chat/completions"]);
    expect(await ledger(res)).toMatchObject({ provider: "openai", attempts: 2, prompt_tokens: 5, completion_tokens: 3, endpoint: "gemini" });
  });

  test("GET /v1beta/models lists the account's models in Google's shape; one model by name", async () => {
    const res = await fetch(`${h.gw.url}/v1beta/models?pageSize=1000`, { headers: { "x-goog-api-key": h.key } });
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
