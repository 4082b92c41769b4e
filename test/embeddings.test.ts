/**
 * POST /v1/embeddings against an OpenAI-format fake (docs/embeddings.md): the official `openai`
 * client (base64 by default), order, exact cost, dimensions, the model kind on both routes,
 * 402, 429, failover, unusable answers, the ledger by endpoint, /v1/models and openapi.
 */
import { rows } from "./helpers/rows.js";
import { describe, expect, test } from "vitest";
import { summarize } from "../src/operations/usage-summary.js";
import { float32, openaiEmbeddingReply, vectorOf } from "./helpers/embeddings-wire.js";
import { FAST_RETRY, useGateway } from "./helpers/gateway.js";
import { bearer, expectLimitHeaders } from "./helpers/http.js";

const EMBED = "openai/text-embedding-3-small"; // bundled: $0.02 per 1M input tokens

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: {
      openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-secret-0000" },
      first: { plugin: "openai-compatible", baseUrl: `${fakeUrl}/first/v1`, apiKey: "sk-first" },
      second: { plugin: "openai-compatible", baseUrl: `${fakeUrl}/second/v1`, apiKey: "sk-second" },
      together: { baseUrl: `${fakeUrl}/together/v1`, apiKey: "tg-key" },
    },
    models: [
      { id: "openai/gpt-4o-mini", pricing: { prompt: "0.15", completion: "0.6" }, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] },
      {
        id: "acme/embed",
        kind: "embeddings",
        pricing: { prompt: "1", completion: "0" },
        order: "fixed",
        endpoints: [
          { provider: "first", model: "e5" },
          { provider: "second", model: "e5" },
        ],
      },
      {
        id: "together/m2-bert",
        kind: "embeddings",
        pricing: { prompt: "0.008", completion: "0" },
        endpoints: [{ provider: "together", model: "togethercomputer/m2-bert-80M-8k-retrieval" }],
      },
    ],
    retry: FAST_RETRY,
  }),
  { fallback: (req) => openaiEmbeddingReply(req) },
);

const embed = (body: unknown, key = h.key) =>
  fetch(`${h.gw.url}/v1/embeddings`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify(body) });

async function ledger(requestId: string): Promise<Record<string, unknown>> {
  return (await rows<Record<string, unknown>>(h.gw.db, "SELECT * FROM ledger WHERE request_id = ?", requestId))[0]!;
}

async function errorOf(res: Response, status: number, code: string | null, param: string | null) {
  expect(res.status).toBe(status);
  expectLimitHeaders(res);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(body.error).toMatchObject({ code, param, request_id: res.headers.get("x-request-id") });
  return body.error;
}

describe("POST /v1/embeddings, OpenAI format", () => {
  test("the openai client (base64 by default) gets each input's vector at its index; base64 goes upstream; the cost is exact", async () => {
    const before = (await h.gw.store.balance("default"))!;
    const inputs = ["a".repeat(600), "bc".repeat(300), "gamma delta".repeat(3), "z"]; // 1,234 tokens by the fake's count
    const { data, response } = await h.gw.client(h.key).embeddings.create({ model: EMBED, input: inputs }).withResponse();
    const res = data;
    const sent = h.fake.requests.at(-1)!;
    expect(sent.path).toBe("/v1/embeddings");
    expect(sent.headers.authorization).toBe("Bearer sk-upstream-secret-0000");
    expect(sent.body).toEqual({ model: "text-embedding-3-small", input: inputs, encoding_format: "base64" });
    expect(res.data.map((d) => d.index)).toEqual([0, 1, 2, 3]);
    res.data.forEach((d, i) => expect(d.embedding).toEqual(float32(vectorOf(inputs[i]!))));
    expect(res).toMatchObject({ object: "list", model: EMBED, usage: { prompt_tokens: 1234, total_tokens: 1234 } });
    // $0.02 per 1M is 20 nano-USD per token: 1,234 tokens cost 24,680 nano-USD exactly.
    const row = await ledger(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      endpoint: "embeddings",
      prompt_tokens: 1234,
      completion_tokens: 0,
      cost: 24_680,
      list_cost: 24_680,
      usage_source: "provider",
      status: "ok",
    });
    expect(before - (await h.gw.store.balance("default"))!).toBe(24_680n);
  });

  test("encoding_format float: the numbers as the provider sent them; a single string is a batch of one", async () => {
    const res = await embed({ model: EMBED, input: "hello", encoding_format: "float" });
    expect(res.status).toBe(200);
    expect(h.fake.requests.at(-1)!.body).toEqual({ model: "text-embedding-3-small", input: ["hello"] });
    const body = (await res.json()) as any;
    expect(body.data).toEqual([{ object: "embedding", index: 0, embedding: vectorOf("hello") }]);
  });

  test("dimensions, token-id input and user go to OpenAI as sent", async () => {
    const res = await embed({
      model: EMBED,
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      dimensions: 7,
      user: "u-1",
      encoding_format: "float",
    });
    expect(res.status).toBe(200);
    expect(h.fake.requests.at(-1)!.body).toEqual({
      model: "text-embedding-3-small",
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      dimensions: 7,
      user: "u-1",
    });
    const body = (await res.json()) as any;
    expect(body.data.map((d: any) => d.embedding.length)).toEqual([7, 7]);
  });

  test("a provider without dimensions or token input: 400 unsupported_parameter naming the field, nothing upstream, nothing charged", async () => {
    const before = (await h.gw.store.balance("default"))!;
    await errorOf(await embed({ model: "together/m2-bert", input: ["a"], dimensions: 256 }), 400, "unsupported_parameter", "dimensions");
    await errorOf(await embed({ model: "together/m2-bert", input: [1, 2, 3] }), 400, "unsupported_parameter", "input");
    expect(h.fake.requests).toHaveLength(0);
    expect(await h.gw.store.balance("default")).toBe(before);
  });

  test("Together: model and input only, usage as reported", async () => {
    const res = await embed({ model: "together/m2-bert", input: ["x", "yy"], encoding_format: "base64" });
    expect(res.status).toBe(200);
    const sent = h.fake.requests.at(-1)!;
    expect(sent.path).toBe("/together/v1/embeddings");
    expect(sent.body).toEqual({ model: "togethercomputer/m2-bert-80M-8k-retrieval", input: ["x", "yy"] });
  });

  test("a chat model on /v1/embeddings and an embedding model on chat: 400 unsupported_model, nothing upstream", async () => {
    await errorOf(await embed({ model: "openai/gpt-4o-mini", input: "x" }), 400, "unsupported_model", "model");
    await errorOf(await h.post({ model: EMBED, messages: [{ role: "user", content: "hi" }] }), 400, "unsupported_model", "model");
    expect(h.fake.requests).toHaveLength(0);
  });

  test("validation is strict and names the field", async () => {
    const e1 = await errorOf(await embed({ model: EMBED }), 400, null, "input");
    expect(e1.message).toContain("input");
    await errorOf(await embed({ model: EMBED, input: "x", foo: 1 }), 400, null, "foo");
    await errorOf(await embed({ model: EMBED, input: [] }), 400, null, "input");
    await errorOf(await embed({ model: EMBED, input: "x", encoding_format: "int8" }), 400, null, "encoding_format");
    await errorOf(await embed({ model: "openai/no-such-embedder", input: "x" }), 404, "model_not_found", "model");
  });

  test("402 when the balance cannot hold the worst case, nothing sent upstream", async () => {
    const key = await h.gw.createKey({ account: "broke" });
    const res = await embed({ model: EMBED, input: "x" }, key);
    expect(res.status).toBe(402);
    expect(((await res.json()) as any).error.type).toBe("insufficient_credits");
    expect(h.fake.requests).toHaveLength(0);
  });

  test("429 from the key's tier with Retry-After equal to the reset", async () => {
    const key = await h.gw.createKey({ rpm: 1 });
    expect((await embed({ model: EMBED, input: "x" }, key)).status).toBe(200);
    const res = await embed({ model: EMBED, input: "x" }, key);
    await errorOf(res, 429, "rate_limited", null);
    expect(res.headers.get("retry-after")).toBe(res.headers.get("x-ratelimit-reset"));
  });

  test("a failing endpoint fails over to the next; a config model of kind embeddings", async () => {
    h.fake.queue({ status: 503, json: { error: { message: "overloaded" } } });
    const res = await embed({ model: "acme/embed", input: ["a", "b"], encoding_format: "float" });
    expect(res.status).toBe(200);
    expect(h.fake.requests.map((r) => r.path)).toEqual(["/first/v1/embeddings", "/second/v1/embeddings"]);
    const row = await ledger(res.headers.get("x-request-id")!);
    // 2 tokens at $1 per 1M: 2,000 nano-USD exactly, charged for the endpoint that answered.
    expect(row).toMatchObject({ provider: "second", prompt_tokens: 2, cost: 2000, attempts: 2, endpoint: "embeddings" });
  });

  test("an answer with fewer vectors than inputs is unusable: 502, the hold released, nothing charged", async () => {
    const before = (await h.gw.store.balance("default"))!;
    const short = {
      json: { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.1] }], model: "m", usage: { prompt_tokens: 2, total_tokens: 2 } },
    };
    h.fake.queue(short, short, short, short, short, short, short, short);
    const res = await embed({ model: EMBED, input: ["a", "b"] });
    await errorOf(res, 502, "upstream_invalid_response", null);
    expect(await h.gw.store.balance("default")).toBe(before);
  });

  test("a reported count past what the input can hold is bounded by it", async () => {
    h.fake.queue(openaiEmbeddingReply({ body: { input: ["abc"] } } as never, 10_000_000));
    const res = await embed({ model: "acme/embed", input: ["abc"], encoding_format: "float" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.usage.prompt_tokens).toBeLessThanOrEqual(3 + 16);
  });

  test("usage by endpoint; /v1/models lists embedding models as such; openapi describes the route", async () => {
    const usage = summarize(await h.gw.store.usage({}));
    expect(usage.by_endpoint.find((e) => e.endpoint === "embeddings")?.requests).toBeGreaterThan(0);
    const models = (await (await fetch(`${h.gw.url}/v1/models`, { headers: bearer(h.key) })).json()) as any;
    expect(models.data.find((m: any) => m.id === EMBED).capabilities).toEqual({ chat: false, completions: false, embeddings: true });
    expect(models.data.find((m: any) => m.id === "acme/embed").capabilities).toEqual({ chat: false, completions: false, embeddings: true });
    expect(models.data.find((m: any) => m.id === "openai/gpt-4o-mini").capabilities).toEqual({ chat: true, completions: false, embeddings: false });
    const doc = (await (await fetch(`${h.gw.url}/v1/openapi.json`)).json()) as any;
    expect(doc.paths["/v1/embeddings"].post.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/EmbeddingsRequest");
    expect(doc.components.schemas.EmbeddingsRequest.properties.encoding_format.enum).toEqual(["float", "base64"]);
  });
});
