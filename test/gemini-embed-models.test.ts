/**
 * Google's shapes for Google's clients (docs/gemini.md, "Which shape", "Embeddings", "Model
 * names"): embedContent and batchEmbedContents on /v1beta and /v1, native to a Google-format
 * fake (the client's requests travel with their task type and title) and translated to an
 * OpenAI-format fake, billed like /v1/embeddings with the ledger endpoint `gemini`; GET
 * /v1/models in Google's shape (and Google's envelope) for a key sent the Google way, OpenAI's
 * for Bearer; the list paged as Google pages it; a vendor/model id without `models/` in the path.
 */
import { describe, expect, test } from "vitest";
import { countTextTokens } from "../src/billing/tokens.js";
import type { Recorded, Reply } from "./helpers/fake-upstream.js";
import { FAST_RETRY, useGateway } from "./helpers/gateway.js";
import { googleEmbeddingReply, openaiEmbeddingReply, vectorOf } from "./helpers/embeddings-wire.js";
import { completion } from "./helpers/openai-wire.js";
import { googleAndOpenaiModels, json } from "./helpers/gemini.js";
import { rows } from "./helpers/rows.js";

/** nano-USD per token of each embedding model ($1 per 1M). */
const PRICE = 1000;

function reply(req: Recorded): Reply {
  if (req.path.includes(":batchEmbedContents")) return googleEmbeddingReply(req, 4);
  if (req.path === "/v1/embeddings") return openaiEmbeddingReply(req);
  return completion("from gpt", { prompt_tokens: 4, completion_tokens: 2 });
}

const h = useGateway(
  (url) => ({
    server: { compat: "openai" },
    providers: { google: { baseUrl: url, apiKey: "g-upstream-embed-3141" }, openai: { baseUrl: `${url}/v1`, apiKey: "sk-upstream-embed-2718" } },
    models: googleAndOpenaiModels("gem-embed-up"),
    retry: FAST_RETRY,
  }),
  { fallback: reply },
);

const post = (path: string, body: unknown, headers: Record<string, string> = { "x-goog-api-key": h.key }) =>
  fetch(`${h.gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${h.gw.url}${path}`, { headers });

const ledger = async (res: Response) =>
  (await rows<Record<string, any>>(h.gw.db, "SELECT * FROM ledger WHERE request_id = ?", res.headers.get("x-request-id")))[0]!;

const text = (t: string) => ({ parts: [{ text: t }] });

describe("embedContent and batchEmbedContents", () => {
  for (const version of ["v1beta", "v1"]) {
    test(`/${version}: native to Google, the client's requests travel with task type and title; billed as an estimate with the title`, async () => {
      const body = {
        model: "models/gemini-embedding-001",
        content: text("a document"),
        taskType: "RETRIEVAL_DOCUMENT",
        title: "Doc title",
        outputDimensionality: 5,
      };
      const res = await post(`/${version}/models/gemini-embedding-001:embedContent`, body);
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ embedding: { values: vectorOf("a document", 5) } });
      const sent = h.fake.requests[0]!;
      expect(sent.path).toBe("/v1beta/models/gem-embed-up:batchEmbedContents");
      expect(sent.headers["x-goog-api-key"]).toBe("g-upstream-embed-3141");
      expect(sent.body).toEqual({ requests: [{ ...body, model: "models/gem-embed-up" }] });
      const tokens = (await countTextTokens("a document")) + (await countTextTokens("Doc title"));
      expect(await ledger(res)).toMatchObject({
        endpoint: "gemini",
        model: "google/gemini-embedding-001",
        prompt_tokens: tokens,
        usage_source: "estimated",
        cost: tokens * PRICE,
      });
    });

    test(`/${version}: translated for an OpenAI-format provider (a vendor/model id in the path), billed on its reported usage`, async () => {
      const texts = ["first text", "the second", "3"];
      const body = {
        requests: texts.map((t) => ({ model: "models/openai/text-embedding-3-small", content: text(t), taskType: "RETRIEVAL_QUERY", outputDimensionality: 3 })),
      };
      const res = await post(`/${version}/models/openai/text-embedding-3-small:batchEmbedContents`, body);
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ embeddings: texts.map((t) => ({ values: vectorOf(t, 3) })) });
      expect(h.fake.requests.map((r) => [r.path, r.body])).toEqual([["/v1/embeddings", { model: "te3s", input: texts, dimensions: 3 }]]);
      const reported = texts.join("").length;
      expect(await ledger(res)).toMatchObject({
        endpoint: "gemini",
        provider: "openai",
        prompt_tokens: reported,
        usage_source: "provider",
        cost: reported * PRICE,
      });
    });
  }

  test("what cannot be embedded or honoured is a 400 in Google's envelope, before any upstream call", async () => {
    const cases: Array<[string, unknown, string, string]> = [
      ["/v1beta/models/gemini-2.5-flash:embedContent", { content: text("x") }, "unsupported_model", "model"],
      [
        "/v1beta/models/gemini-embedding-001:embedContent",
        { content: { parts: [{ inlineData: { mimeType: "image/png", data: "AA==" } }] } },
        "unsupported_parameter",
        "content.parts.0",
      ],
      [
        "/v1beta/models/openai/text-embedding-3-small:batchEmbedContents",
        {
          requests: [
            { content: text("a"), outputDimensionality: 3 },
            { content: text("b"), outputDimensionality: 4 },
          ],
        },
        "unsupported_parameter",
        "requests.1.outputDimensionality",
      ],
      ["/v1/models/openai/text-embedding-3-small:embedContent", { content: text("a"), autoTruncate: true }, "unsupported_parameter", "autoTruncate"],
      ["/v1beta/models/gemini-embedding-001:batchEmbedContents", { requests: [] }, "invalid_request_error", "requests"],
    ];
    for (const [path, body, reason, param] of cases) {
      const res = await post(path, body);
      expect(res.status, path).toBe(400);
      const { error } = await json(res);
      expect(error, JSON.stringify(body)).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", param });
      if (reason !== "invalid_request_error") expect(error.reason).toBe(reason);
    }
    expect(h.fake.requests).toEqual([]);
    // A field newer than the gateway travels to Google as sent.
    const native = await post("/v1beta/models/gemini-embedding-001:embedContent", { content: text("a"), autoTruncate: true });
    expect(native.status).toBe(200);
    expect(h.fake.requests[0]!.body.requests[0].autoTruncate).toBe(true);
  });

  test("an embedding model on generateContent is a 400; an unknown method is Google's 404", async () => {
    const chat = await post("/v1beta/models/gemini-embedding-001:generateContent", { contents: [text("x")] });
    expect((await json(chat)).error).toMatchObject({ code: 400, reason: "unsupported_model" });
    const unknown = await post("/v1/models/gemini-embedding-001:predict", {});
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });
});

describe("GET /v1/models: Google's shape for a key sent the Google way", () => {
  const all = async (path: string, headers: Record<string, string> = {}) => {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const res = await get(`${path}${path.includes("?") ? "&" : "?"}pageSize=7${token ? `&pageToken=${token}` : ""}`, headers);
      expect(res.status).toBe(200);
      const page = (await json(res)) as { models: Array<{ name: string }>; nextPageToken?: string };
      expect(page.models.length).toBeLessThanOrEqual(7);
      names.push(...page.models.map((m) => m.name));
      token = page.nextPageToken;
    } while (token);
    return names;
  };

  test("x-goog-api-key and ?key= get Google's list, paged; Bearer keeps OpenAI's", async () => {
    const google = await all("/v1/models", { "x-goog-api-key": h.key });
    expect(google).toEqual(await all(`/v1/models?key=${h.key}`));
    expect(google).toEqual(await all("/v1beta/models", { authorization: `Bearer ${h.key}` }));
    expect(new Set(google).size).toBe(google.length);
    expect(google).toEqual(
      expect.arrayContaining(["models/gemini-2.5-flash", "models/gpt-4o-mini", "models/gemini-embedding-001", "models/text-embedding-3-small"]),
    );
    const openai = (await json(await get("/v1/models", { authorization: `Bearer ${h.key}` }))) as { object: string; data: Array<{ id: string }> };
    expect(openai.object).toBe("list");
    expect(openai.data.length).toBe(google.length);

    const first = (await json(await get("/v1/models", { "x-goog-api-key": h.key }))) as { models: unknown[]; nextPageToken?: string };
    expect(first.models.length).toBe(Math.min(50, google.length));
    expect(first.nextPageToken !== undefined).toBe(google.length > 50);
  });

  test("one model in Google's shape, chat and embedding methods; a miss is Google's 404", async () => {
    const chat = await json(await get("/v1/models/gemini-2.5-flash", { "x-goog-api-key": h.key }));
    expect(chat).toEqual({
      name: "models/gemini-2.5-flash",
      displayName: "google/gemini-2.5-flash",
      description: "google/gemini-2.5-flash through the gateway",
      supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
      thinking: true, // the catalog says this model reasons
      ...(chat.inputTokenLimit ? { inputTokenLimit: chat.inputTokenLimit } : {}),
      ...(chat.outputTokenLimit ? { outputTokenLimit: chat.outputTokenLimit } : {}),
    });
    const embed = await json(await get(`/v1/models/openai/text-embedding-3-small?key=${h.key}`));
    expect(embed).toMatchObject({ name: "models/openai/text-embedding-3-small", supportedGenerationMethods: ["embedContent", "batchEmbedContents"] });
    const bearer = await json(await get("/v1/models/gemini-2.5-flash", { authorization: `Bearer ${h.key}` }));
    expect(bearer).toMatchObject({ id: "google/gemini-2.5-flash", object: "model" });

    const miss = await get("/v1/models/nope", { "x-goog-api-key": h.key });
    expect(miss.status).toBe(404);
    expect((await json(miss)).error).toMatchObject({ code: 404, status: "NOT_FOUND", reason: "model_not_found" });
    const missBearer = await get("/v1/models/nope", { authorization: `Bearer ${h.key}` });
    expect((await json(missBearer)).error).toMatchObject({ type: "not_found", code: "model_not_found" });
  });

  test("errors there are Google's envelope for a Google key: a wrong ?key=, a bad pageToken", async () => {
    const wrong = await get("/v1/models?key=sk-wrong");
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
    const token = await get("/v1/models?pageToken=bm90LWEtdG9rZW4", { "x-goog-api-key": h.key });
    expect(token.status).toBe(400);
    expect((await json(token)).error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", param: "pageToken" });
    const noKey = await get("/v1/models");
    expect((await json(noKey)).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
  });
});

test("a vendor/model id where Google puts the resource name (/v1beta/openai/gpt-4o-mini:generateContent) routes to that model", async () => {
  const res = await post("/v1beta/openai/gpt-4o-mini:generateContent", { contents: [text("hi")] });
  expect(res.status).toBe(200);
  expect((await json(res)).candidates[0].content.parts).toEqual([{ text: "from gpt" }]);
  expect(h.fake.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
  const notModel = await post("/v1beta/chat:generateContent", { contents: [text("hi")] });
  expect(notModel.status).toBe(404);
});
