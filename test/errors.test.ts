/** Every row of docs/http.md's error table, with the exact body shape and headers. */
import { describe, expect, test } from "vitest";
import { openaiConfig, useGateway } from "./helpers/gateway.js";
import { bearer, expectError, expectLimitHeaders, post } from "./helpers/http.js";
import { completion, error } from "./helpers/openai-wire.js";

const MODEL = "openai/gpt-4o-mini";
const hi = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

const h = useGateway(
  (fakeUrl) =>
    openaiConfig(fakeUrl, {
      providers: {
        openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-secret-0000" },
        buggy: { plugin: "./test/fixtures/buggy-plugin.mjs", apiKey: "x" },
      },
      models: [
        { id: MODEL, pricing: { prompt: "0.15", completion: "0.6" }, max_output: 1000, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] },
        { id: "acme/buggy", pricing: { prompt: "0", completion: "0" }, endpoints: [{ provider: "buggy", model: "b" }] },
      ],
      server: { maxBodyBytes: 4096 },
      health: { failureThreshold: 1000 },
    }),
  { credits: "5" },
);

describe("the status codes of docs/http.md", () => {
  test("400 invalid_request_error, code null, message names the field", async () => {
    const e = await expectError(await h.post({ model: MODEL }), 400, "invalid_request_error", null);
    expect(e.message).toBe("messages: Required");
  });

  test("400 for malformed JSON", async () => {
    const e = await expectError(await h.post("{not json"), 400, "invalid_request_error", null);
    expect(e.message).toMatch(/JSON/);
  });

  test("401 authentication_error invalid_api_key", async () => {
    await expectError(await post(h.gw.url, "/v1/chat/completions", hi), 401, "authentication_error", "invalid_api_key");
  });

  test("402 insufficient_credits, code null, with x-should-retry: false and the remedy", async () => {
    const poor = await h.gw.createKey({ account: "poor" });
    const res = await h.post(hi, bearer(poor));
    expect(res.headers.get("x-should-retry")).toBe("false");
    const e = await expectError(res, 402, "insufficient_credits", null);
    expect(e.message).toMatch(/credits add/);
    expect(e.message).toMatch(/BYOK/);
  });

  test("404 not_found model_not_found for an unknown model", async () => {
    await expectError(await h.post({ ...hi, model: "nope/none" }), 404, "not_found", "model_not_found");
  });

  test("404 not_found for an unknown route, 405 for a wrong method", async () => {
    await expectError(await fetch(`${h.gw.url}/v1/nothing`), 404, "not_found", "not_found");
    const res = await fetch(`${h.gw.url}/v1/chat/completions`, { headers: bearer(h.key) });
    expect(res.headers.get("allow")).toBe("POST");
    await expectError(res, 405, "invalid_request_error", "method_not_allowed");
  });

  test("413 request_too_large past server.maxBodyBytes (declared or chunked)", async () => {
    const big = { ...hi, messages: [{ role: "user", content: "x".repeat(5000) }] };
    await expectError(await h.post(big), 413, "invalid_request_error", "request_too_large");
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(JSON.stringify(big)));
        c.close();
      },
    });
    const res = await fetch(`${h.gw.url}/v1/chat/completions`, { method: "POST", headers: bearer(h.key), body: chunked, duplex: "half" } as RequestInit);
    await expectError(res, 413, "invalid_request_error", "request_too_large");
  });

  test("429 rate_limit_error rate_limited with Retry-After equal to X-RateLimit-Reset", async () => {
    const limited = await h.gw.createKey({ rpm: 2 });
    h.fake.queue(completion("a"), completion("b"));
    for (let i = 0; i < 2; i++) expect((await h.post(hi, bearer(limited))).status).toBe(200);
    const res = await h.post(hi, bearer(limited));
    expect(res.headers.get("retry-after")).toBe(res.headers.get("x-ratelimit-reset"));
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("x-ratelimit-limit")).toBe("2");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    await expectError(res, 429, "rate_limit_error", "rate_limited");
  });

  test("503 upstream_error upstream_unavailable with a generic message", async () => {
    h.fake.fallback = () => error(503, "openai internal detail xyz");
    try {
      const e = await expectError(await h.post(hi), 503, "upstream_error", "upstream_unavailable");
      expect(e.message).not.toMatch(/xyz|openai/i);
    } finally {
      h.fake.fallback = () => ({ status: 500, json: {} });
    }
  });

  test("500 for a gateway bug: upstream_error internal_error, generic message", async () => {
    const e = await expectError(await h.post({ ...hi, model: "acme/buggy" }), 500, "upstream_error", "internal_error");
    expect(e.message).not.toMatch(/TypeError|undefined/);
  });

  test("every success also carries X-Request-Id and X-RateLimit-*, ids unique", async () => {
    h.fake.queue(completion("ok"));
    const a = await h.post(hi);
    expect(a.status).toBe(200);
    expectLimitHeaders(a);
    const b = await fetch(`${h.gw.url}/v1/health/providers`);
    expectLimitHeaders(b);
    const c = await fetch(`${h.gw.url}/v1/models`, { headers: bearer(h.key) });
    expectLimitHeaders(c);
    expect(new Set([a, b, c].map((r) => r.headers.get("x-request-id"))).size).toBe(3);
  });

  test("the gateway never takes X-Request-Id from the client", async () => {
    const res = await fetch(`${h.gw.url}/v1/models`, { headers: { ...bearer(h.key), "x-request-id": "client-chosen" } });
    expect(res.headers.get("x-request-id")).not.toBe("client-chosen");
  });
});
