/**
 * `@google/genai` 3.3.0 (Google's own SDK; it declares Node >= 22 and runs on Node 20) pointed
 * at the gateway with only `httpOptions.baseUrl` and `apiKey` changed. It calls
 * `/v1/models/{model}:generateContent` (its default API version), which the gateway serves as
 * /v1beta (docs/gemini.md). Stream fidelity: natively and translated, the streamed chunks
 * joined equal the non-streamed answer (text, function calls, usage); countTokens both ways;
 * an error reaches the SDK as its ApiError with Google's status. With its default `/v1` and with
 * `apiVersion: "v1beta"`: models.list (every page) and models.get in Google's shape, a missing
 * model as its ApiError 404, embedContent natively and translated.
 */
import { ApiError, GoogleGenAI, Type, type GenerateContentResponse } from "@google/genai";
import { describe, expect, test } from "vitest";
import type { Recorded, Reply } from "../helpers/fake-upstream.js";
import { useGateway } from "../helpers/gateway.js";
import { googleEmbeddingReply, openaiEmbeddingReply, vectorOf } from "../helpers/embeddings-wire.js";
import { googleAndOpenaiModels } from "../helpers/gemini.js";
import { completion, stream } from "../helpers/openai-wire.js";
import { rows } from "../helpers/rows.js";
import { candidate, response, sse } from "../providers/google.fixture.js";

const TEXT = ["Hello ", "from ", "the model."];
const USAGE = { promptTokenCount: 12, candidatesTokenCount: 6, thoughtsTokenCount: 3, cachedContentTokenCount: 4 };
const CALL = { name: "get_weather", args: { city: "Paris" } };
const wantsTool = (body: any) => JSON.stringify(body).includes("get_weather");

/** Google's format at /v1beta/..., OpenAI's at /v1/chat/completions: the same answers, each in its provider's shape. */
function script(req: Recorded): Reply {
  if (req.path.includes(":countTokens")) return { json: { totalTokens: 42 } };
  if (req.path.includes(":batchEmbedContents")) return googleEmbeddingReply(req);
  if (req.path === "/v1/embeddings") return openaiEmbeddingReply(req);
  if (req.path.startsWith("/v1beta/")) {
    const streamed = req.path.includes(":streamGenerateContent");
    if (wantsTool(req.body)) {
      const answer = response([candidate([{ functionCall: CALL }], "STOP")], USAGE);
      return streamed ? sse([answer]) : { json: answer };
    }
    if (!streamed) return { json: response([candidate([{ text: TEXT.join("") }], "STOP")], USAGE) };
    return sse(TEXT.map((t, i) => response([candidate([{ text: t }], i === TEXT.length - 1 ? "STOP" : undefined)], i === TEXT.length - 1 ? USAGE : undefined)));
  }
  const usage = { prompt_tokens: 20, completion_tokens: 8 };
  if (wantsTool(req.body)) {
    const call = { id: "call_w1", type: "function", function: { name: CALL.name, arguments: JSON.stringify(CALL.args) } };
    if (!req.body.stream) return completion(null, usage, { tool_calls: [call] });
    const chunk = (choices: unknown[], u: unknown = null) => ({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices, usage: u });
    return {
      sse: [
        chunk([
          { index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, ...call, function: { name: CALL.name, arguments: "" } }] }, finish_reason: null },
        ]),
        chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }, finish_reason: null }]),
        chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
        chunk([], { ...usage, total_tokens: 28 }),
      ].map((data) => ({ data })),
    };
  }
  return req.body.stream ? stream(TEXT, usage) : completion(TEXT.join(""), usage);
}

const h = useGateway(
  (url) => ({
    providers: { google: { baseUrl: url, apiKey: "g-upstream-sdk-5521" }, openai: { baseUrl: `${url}/v1`, apiKey: "sk-upstream-sdk-5522" } },
    models: googleAndOpenaiModels("gemini-embedding-001"),
  }),
  { fallback: script },
);

const sdk = (apiVersion?: string) => new GoogleGenAI({ apiKey: h.key, ...(apiVersion ? { apiVersion } : {}), httpOptions: { baseUrl: h.gw.url } });

const tools = [
  {
    functionDeclarations: [
      {
        name: "get_weather",
        description: "Weather in a city",
        parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ["city"] },
      },
    ],
  },
];

async function both(model: string, withTools: boolean): Promise<{ whole: GenerateContentResponse; chunks: GenerateContentResponse[] }> {
  const ai = sdk();
  const params = {
    model,
    contents: "What is the weather in Paris?",
    config: { systemInstruction: "Be brief.", temperature: 0.2, ...(withTools ? { tools } : {}) },
  };
  const whole = await ai.models.generateContent(params);
  const chunks: GenerateContentResponse[] = [];
  for await (const c of await ai.models.generateContentStream(params)) chunks.push(c);
  return { whole, chunks };
}

for (const [path, model] of [
  ["natively (Google)", "gemini-2.5-flash"],
  ["translated (OpenAI format)", "openai/gpt-4o-mini"],
] as const) {
  describe(`@google/genai 3.3.0, ${path}`, () => {
    test("generateContentStream: the chunks joined equal generateContent's answer, usage included", async () => {
      const { whole, chunks } = await both(model, false);
      expect(whole.text).toBe(TEXT.join(""));
      expect(chunks.map((c) => c.text ?? "").join("")).toBe(whole.text);
      expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe(whole.candidates![0]!.finishReason);
      expect(chunks.at(-1)!.usageMetadata).toEqual(whole.usageMetadata);
      expect(h.fake.requests.map((r) => r.path)).toEqual(
        model.startsWith("gemini")
          ? ["/v1beta/models/gemini-2.5-flash:generateContent", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"]
          : ["/v1/chat/completions", "/v1/chat/completions"],
      );
    });

    test("a function call: streamed and not, the same call", async () => {
      const { whole, chunks } = await both(model, true);
      expect(whole.functionCalls).toEqual([expect.objectContaining(CALL)]);
      expect(chunks.flatMap((c) => c.functionCalls ?? [])).toEqual(whole.functionCalls);
    });

    test("countTokens", async () => {
      const { totalTokens } = await sdk().models.countTokens({ model, contents: "count these words please" });
      if (model.startsWith("gemini")) expect(totalTokens).toBe(42);
      else expect(totalTokens).toBeGreaterThan(3);
    });
  });
}

test("an unknown model is the SDK's ApiError with status 404", async () => {
  const err = await sdk()
    .models.generateContent({ model: "no-such-model", contents: "hi" })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(404);
  expect((err as ApiError).message).toContain("NOT_FOUND");
});

for (const version of [undefined, "v1beta"]) {
  describe(`@google/genai 3.3.0, ${version ?? "its default /v1"}: models and embeddings`, () => {
    test("generateContent, natively and translated, on this API version", async () => {
      for (const model of ["gemini-2.5-flash", "openai/gpt-4o-mini"]) {
        const answer = await sdk(version).models.generateContent({ model, contents: "hi" });
        expect(answer.text, model).toBe(TEXT.join(""));
      }
      expect(h.fake.requests.map((r) => r.path)).toEqual(["/v1beta/models/gemini-2.5-flash:generateContent", "/v1/chat/completions"]);
    });

    test("models.list returns the account's models in Google's shape, every page; models.get one of them", async () => {
      const names: string[] = [];
      for await (const m of await sdk(version).models.list()) names.push(m.name!);
      expect(names).toEqual(expect.arrayContaining(["models/gemini-2.5-flash", "models/gpt-4o-mini", "models/gemini-embedding-001"]));
      expect(new Set(names).size).toBe(names.length);
      expect(h.fake.requests).toEqual([]); // the list is the gateway's own

      const one = await sdk(version).models.get({ model: "gemini-2.5-flash" });
      expect(one).toMatchObject({ name: "models/gemini-2.5-flash", displayName: "google/gemini-2.5-flash" });
      expect(one.supportedActions).toEqual(["generateContent", "streamGenerateContent", "countTokens"]);
      const vendor = await sdk(version).models.get({ model: "openai/gpt-4o-mini" });
      expect(vendor).toMatchObject({ name: "models/openai/gpt-4o-mini", displayName: "openai/gpt-4o-mini" });
    });

    test("models.get of a model the account cannot use is the SDK's ApiError 404", async () => {
      const err = await sdk(version)
        .models.get({ model: "no-such-model" })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(404);
    });

    for (const model of ["gemini-embedding-001", "openai/text-embedding-3-small"]) {
      test(`embedContent, ${model.startsWith("gemini") ? "natively" : "translated"}: one vector per content, billed with the endpoint gemini`, async () => {
        const contents = ["What is the meaning of life?", "How much wood?"];
        const res = await sdk(version).models.embedContent({ model, contents, config: { taskType: "RETRIEVAL_QUERY" } });
        expect(res.embeddings!.map((e) => e.values)).toEqual(contents.map((t) => vectorOf(t)));
        const sent = h.fake.requests[0]!;
        if (model.startsWith("gemini")) {
          expect(sent.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
          expect(sent.body.requests.map((r: any) => r.taskType)).toEqual(["RETRIEVAL_QUERY", "RETRIEVAL_QUERY"]);
        } else {
          expect([sent.path, sent.body.input]).toEqual(["/v1/embeddings", contents]);
        }
        const id = res.sdkHttpResponse!.headers!["x-request-id"];
        const [row] = await rows<{ endpoint: string; cost: number }>(h.gw.db, "SELECT endpoint, cost FROM ledger WHERE request_id = ?", id);
        expect(row!.endpoint).toBe("gemini");
        expect(row!.cost).toBeGreaterThan(0);
      });
    }
  });
}
