/**
 * /v1/embeddings per provider, each fake answering in its provider's own wire format and the
 * tests asserting what it received:
 * - Azure OpenAI Embeddings - Create: POST <resource>/openai/deployments/{deployment}/embeddings?api-version,
 *   `api-key` header, OpenAI's body and answer (https://learn.microsoft.com/azure/ai-foundry/openai/reference#embeddings);
 * - Mistral POST /v1/embeddings, `output_dimension`, OpenAI-like answer with usage
 *   (https://docs.mistral.ai/api/endpoint/embeddings);
 * - Gemini models/{model}:batchEmbedContents -> `{embeddings: [{values}]}`, no usage
 *   (https://ai.google.dev/api/embeddings#method:-models.batchembedcontents);
 * - Bedrock InvokeModel POST /model/{modelId}/invoke, SigV4: Titan `{inputText, dimensions}` ->
 *   `{embedding, inputTextTokenCount}`; Cohere `{texts, input_type}` -> `{id, texts, embeddings,
 *   response_type: "embeddings_floats"}` with the count in `x-amzn-bedrock-input-token-count`
 *   (docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html, -embed-v3.html).
 */
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import type { Recorded, Reply } from "../helpers/fake-upstream.js";
import { decodeBase64, float32, openaiEmbeddingReply, tokensOf, vectorOf } from "../helpers/embeddings-wire.js";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { bearer } from "../helpers/http.js";
import { resign, SECRET } from "./bedrock.fixture.js";

const KEY_ID = "AKIAIOSFODNN7EXAMPLE";
const price = (prompt: string) => ({ prompt, completion: "0" });
const model = (id: string, provider: string, upstream: string, prompt = "0.1") => ({
  id,
  kind: "embeddings",
  pricing: price(prompt),
  endpoints: [{ provider, model: upstream }],
});

function bedrockReply(req: Recorded): Reply {
  const id = decodeURIComponent(/^\/model\/([^/]+)\/invoke$/.exec(req.path)![1]!);
  const b = req.body as { inputText?: string; dimensions?: number; texts?: string[] };
  if (id.startsWith("amazon.titan")) return { json: { embedding: vectorOf(b.inputText!, b.dimensions ?? 4), inputTextTokenCount: b.inputText!.length } };
  return {
    headers: { "x-amzn-bedrock-input-token-count": String(tokensOf(b.texts!)) },
    json: { id: "d4bd1e3f-1a3c-4b1a-9f5b-2b6b8e0f7c11", texts: b.texts, embeddings: b.texts!.map((t) => vectorOf(t, 5)), response_type: "embeddings_floats" },
  };
}

function reply(req: Recorded): Reply {
  if (req.path.startsWith("/model/")) return bedrockReply(req);
  if (req.path.includes(":batchEmbedContents")) {
    const requests = (req.body as { requests: Array<{ content: { parts: Array<{ text: string }> }; outputDimensionality?: number }> }).requests;
    return { json: { embeddings: requests.map((r) => ({ values: vectorOf(r.content.parts[0]!.text, r.outputDimensionality ?? 6) })) } };
  }
  return openaiEmbeddingReply(req);
}

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: {
      azure: { baseUrl: `${fakeUrl}/azure/openai`, apiKey: "azure-key-123" },
      mistral: { baseUrl: `${fakeUrl}/mistral/v1`, apiKey: "mistral-key" },
      google: { baseUrl: `${fakeUrl}/google`, apiKey: "gemini-key" },
      bedrock: { baseUrl: fakeUrl, apiKey: `${KEY_ID}:${SECRET}`, region: "us-west-2" },
    },
    models: [
      model("azure/embed-small", "azure", "emb-small-prod"),
      model("bedrock/titan-v2", "bedrock", "amazon.titan-embed-text-v2:0", "0.02"),
      model("bedrock/titan-v1", "bedrock", "amazon.titan-embed-text-v1"),
      model("bedrock/cohere-en", "bedrock", "cohere.embed-english-v3"),
      model("bedrock/cohere-v4", "bedrock", "cohere.embed-v4:0", "0.12"),
    ],
    retry: FAST_RETRY,
  }),
  { fallback: reply },
);

async function embed(body: Record<string, unknown>) {
  const res = await fetch(`${h.gw.url}/v1/embeddings`, {
    method: "POST",
    headers: { ...bearer(h.key), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { res, body: (await res.json()) as any };
}

function ledger(res: Response): Record<string, unknown> {
  const db = new Database(h.gw.db, { readonly: true });
  try {
    return db.prepare("SELECT * FROM ledger WHERE request_id = ?").get(res.headers.get("x-request-id")) as Record<string, unknown>;
  } finally {
    db.close();
  }
}

describe("Azure OpenAI", () => {
  test("the deployment URL with api-version and api-key; dimensions and base64 forwarded; the answer decoded and re-encoded", async () => {
    const { res, body } = await embed({ model: "azure/embed-small", input: ["one", "two"], dimensions: 4, encoding_format: "base64" });
    expect(res.status).toBe(200);
    const sent = h.fake.requests.at(-1)!;
    expect(sent.path).toBe("/azure/openai/deployments/emb-small-prod/embeddings?api-version=2024-10-21");
    expect(sent.headers["api-key"]).toBe("azure-key-123");
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({ model: "emb-small-prod", input: ["one", "two"], dimensions: 4, encoding_format: "base64" });
    expect(body.data.map((d: any) => decodeBase64(d.embedding))).toEqual([float32(vectorOf("one", 4)), float32(vectorOf("two", 4))]);
  });
});

describe("Mistral", () => {
  test("mistral-embed (bundled): model and input only, OpenAI's answer, usage billed", async () => {
    const { res, body } = await embed({ model: "mistral/mistral-embed", input: ["bonjour", "le monde"], encoding_format: "float" });
    expect(res.status).toBe(200);
    const sent = h.fake.requests.at(-1)!;
    expect(sent.path).toBe("/mistral/v1/embeddings");
    expect(sent.headers.authorization).toBe("Bearer mistral-key");
    expect(sent.body).toEqual({ model: "mistral-embed", input: ["bonjour", "le monde"] });
    expect(body.data.map((d: any) => d.embedding)).toEqual([vectorOf("bonjour"), vectorOf("le monde")]);
    expect(body.usage).toEqual({ prompt_tokens: 15, total_tokens: 15 });
  });

  test("dimensions on mistral-embed (fixed width): 400 unsupported_parameter before any upstream call", async () => {
    const { res, body } = await embed({ model: "mistral/mistral-embed", input: "x", dimensions: 256 });
    expect(res.status).toBe(400);
    expect(body.error).toMatchObject({ code: "unsupported_parameter", param: "dimensions" });
    expect(h.fake.requests).toHaveLength(0);
  });

  test("more than 32 inputs go in calls of 32, in order", async () => {
    const inputs = Array.from({ length: 70 }, (_, i) => `text number ${i}`);
    const { res, body } = await embed({ model: "mistral/mistral-embed", input: inputs, encoding_format: "float" });
    expect(res.status).toBe(200);
    expect(h.fake.requests.map((r) => (r.body as { input: string[] }).input.length)).toEqual([32, 32, 6]);
    expect(body.data.map((d: any) => d.index)).toEqual(inputs.map((_, i) => i));
    expect(body.data.map((d: any) => d.embedding)).toEqual(inputs.map((t) => vectorOf(t)));
    expect(body.usage.prompt_tokens).toBe(tokensOf(inputs));
  });
});

describe("Gemini", () => {
  test("batchEmbedContents with one request per text and outputDimensionality; no usage: billed on an estimate, marked so", async () => {
    const { res, body } = await embed({ model: "google/gemini-embedding-001", input: ["What is the meaning of life?", "How much wood?"], dimensions: 8 });
    expect(res.status).toBe(200);
    const sent = h.fake.requests.at(-1)!;
    expect(sent.path).toBe("/google/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(sent.headers["x-goog-api-key"]).toBe("gemini-key");
    expect(sent.body).toEqual({
      requests: [
        { model: "models/gemini-embedding-001", content: { parts: [{ text: "What is the meaning of life?" }] }, outputDimensionality: 8 },
        { model: "models/gemini-embedding-001", content: { parts: [{ text: "How much wood?" }] }, outputDimensionality: 8 },
      ],
    });
    expect(body.data.map((d: any) => d.embedding)).toEqual([vectorOf("What is the meaning of life?", 8), vectorOf("How much wood?", 8)]);
    const row = ledger(res);
    expect(row).toMatchObject({ usage_source: "estimated", endpoint: "embeddings" });
    expect(row.prompt_tokens).toBe(body.usage.prompt_tokens);
    expect(body.usage.prompt_tokens).toBeGreaterThan(5);
    // $0.15 per 1M is 150 nano-USD per token.
    expect(row.cost).toBe(body.usage.prompt_tokens * 150);
  });

  test("base64 for a provider that sends floats: encoded by the gateway as little-endian float32", async () => {
    const { body } = await embed({ model: "google/gemini-embedding-001", input: "hi", encoding_format: "base64" });
    expect(h.fake.requests.at(-1)!.body).not.toHaveProperty("encoding_format");
    expect(decodeBase64(body.data[0].embedding)).toEqual(float32(vectorOf("hi", 6)));
  });

  test("over 100 inputs go in batches of 100", async () => {
    const inputs = Array.from({ length: 150 }, (_, i) => `t${i}`);
    const { res, body } = await embed({ model: "google/gemini-embedding-001", input: inputs, encoding_format: "float" });
    expect(res.status).toBe(200);
    expect(h.fake.requests.map((r) => (r.body as { requests: unknown[] }).requests.length)).toEqual([100, 50]);
    expect(body.data.map((d: any) => d.embedding)).toEqual(inputs.map((t) => vectorOf(t, 6)));
  });
});

describe("Bedrock", () => {
  test("Titan v2: InvokeModel once per text, signed, dimensions; token counts from inputTextTokenCount; order kept", async () => {
    const inputs = ["first text", "2nd", "the third one"];
    const { res, body } = await embed({ model: "bedrock/titan-v2", input: inputs, dimensions: 256, encoding_format: "float" });
    expect(res.status).toBe(200);
    expect(h.fake.requests).toHaveLength(3);
    for (const r of h.fake.requests) {
      expect(r.path).toBe("/model/amazon.titan-embed-text-v2%3A0/invoke");
      expect(await resign(r, { accessKeyId: KEY_ID, secretAccessKey: SECRET }, "us-west-2")).toBe(r.headers.authorization);
    }
    expect(h.fake.requests.map((r) => r.body).sort((a, b) => a.inputText.localeCompare(b.inputText))).toEqual(
      [...inputs].sort().map((inputText) => ({ inputText, dimensions: 256 })),
    );
    expect(body.data.map((d: any) => d.embedding)).toEqual(inputs.map((t) => vectorOf(t, 256)));
    expect(body.usage.prompt_tokens).toBe(tokensOf(inputs));
    expect(ledger(res)).toMatchObject({ usage_source: "provider", cost: tokensOf(inputs) * 20 });
  });

  test("Titan: dimensions v2 does not take, or on v1 at all: 400 before any call", async () => {
    for (const [m, dims] of [
      ["bedrock/titan-v2", 300],
      ["bedrock/titan-v1", 256],
    ] as const) {
      const { res, body } = await embed({ model: m, input: "x", dimensions: dims });
      expect(res.status).toBe(400);
      expect(body.error).toMatchObject({ code: "unsupported_parameter", param: "dimensions" });
    }
    expect(h.fake.requests).toHaveLength(0);
  });

  test("Cohere: texts with input_type search_document in one call; the count from x-amzn-bedrock-input-token-count", async () => {
    const inputs = ["alpha", "beta gamma"];
    const { res, body } = await embed({ model: "bedrock/cohere-en", input: inputs, encoding_format: "base64" });
    expect(res.status).toBe(200);
    const sent = h.fake.requests.at(-1)!;
    expect(h.fake.requests).toHaveLength(1);
    expect(sent.path).toBe("/model/cohere.embed-english-v3/invoke");
    expect(sent.body).toEqual({ texts: inputs, input_type: "search_document" });
    expect(body.data.map((d: any) => decodeBase64(d.embedding))).toEqual(inputs.map((t) => float32(vectorOf(t, 5))));
    expect(body.usage.prompt_tokens).toBe(tokensOf(inputs));
    expect(ledger(res)).toMatchObject({ usage_source: "provider", prompt_tokens: tokensOf(inputs) });
  });

  test("Cohere v4: output_dimension; its by-type answer ({float: [...]}) is read too", async () => {
    h.fake.queue({
      headers: { "x-amzn-bedrock-input-token-count": "3" },
      json: { id: "x", texts: ["abc"], embeddings: { float: [vectorOf("abc", 256)] }, response_type: "embeddings_by_type" },
    });
    const { res, body } = await embed({ model: "bedrock/cohere-v4", input: ["abc"], dimensions: 256, encoding_format: "float" });
    expect(res.status).toBe(200);
    expect(h.fake.requests.at(-1)!.body).toEqual({ texts: ["abc"], input_type: "search_document", output_dimension: 256 });
    expect(body.data[0].embedding).toEqual(vectorOf("abc", 256));
    expect(body.usage.prompt_tokens).toBe(3);
  });
});
