import { describe, expect, test } from "vitest";
import plugin, { GA_API_VERSION } from "../../providers/azure/index.js";
import { describeProvider } from "../helpers/conformance.js";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { completion } from "../helpers/openai-wire.js";
import { azureFixture, azureStream, DEPLOYMENT } from "./azure.fixture.js";

describeProvider(azureFixture());
describeProvider(azureFixture({ apiVersion: "v1" }));

const KEY = "3f9c2a7b6e5d4c1a8b9f0e7d6c5b4a3f";
const route = (id: string, provider: string) => ({ id, pricing: { prompt: "0.15", completion: "0.6" }, endpoints: [{ provider, model: DEPLOYMENT }] });

describe("azure adapter", () => {
  const h = useGateway(
    (fakeUrl) => ({
      providers: {
        azure: { baseUrl: `${fakeUrl}/openai/`, apiKey: KEY },
        preview: { plugin: "azure", baseUrl: `${fakeUrl}/openai`, apiKey: KEY, apiVersion: "2025-04-01-preview" },
        v1: { plugin: "azure", baseUrl: `${fakeUrl}/openai/v1`, apiKey: KEY, apiVersion: "v1" },
      },
      models: [route("azure/mini", "azure"), route("preview/mini", "preview"), route("v1/mini", "v1")],
      retry: FAST_RETRY,
    }),
    { body: { model: "azure/mini", messages: [{ role: "user", content: "Hi" }] } },
  );

  test("deployment URL with api-version, api-key header and never Authorization; parameters pass through, max_tokens kept", async () => {
    h.fake.queue(completion("ok"));
    const res = await h.post({ max_tokens: 20, n: 2, seed: 7, presence_penalty: 0.5, frequency_penalty: 0.1 });
    expect(res.status).toBe(200);
    const req = h.fake.requests[0]!;
    expect(req.path).toBe(`/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=${GA_API_VERSION}`);
    expect(GA_API_VERSION).toBe("2024-10-21");
    expect(req.headers["api-key"]).toBe(KEY);
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body).toMatchObject({ model: DEPLOYMENT, max_tokens: 20, n: 2, seed: 7, presence_penalty: 0.5, frequency_penalty: 0.1 });
    expect(req.body.max_completion_tokens).toBeUndefined();
  });

  test("option apiVersion picks the version; apiVersion v1 uses /openai/v1 with the deployment as model", async () => {
    h.fake.queue(completion("ok"), completion("ok"));
    expect((await h.post({ model: "preview/mini" })).status).toBe(200);
    expect((await h.post({ model: "v1/mini" })).status).toBe(200);
    const [preview, v1] = h.fake.requests;
    expect(preview!.path).toBe(`/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=2025-04-01-preview`);
    expect(v1!.path).toBe("/openai/v1/chat/completions");
    expect(v1!.body.model).toBe(DEPLOYMENT);
    expect(v1!.headers).toMatchObject({ "api-key": KEY });
    expect(v1!.headers.authorization).toBeUndefined();
  });

  test("Azure's stream (prompt filter chunk, content filter results and offsets) assembles, with usage asked for and returned", async () => {
    h.fake.queue(azureStream(["Hel", "lo"], { prompt_tokens: 9, completion_tokens: 2 }));
    let text = "";
    let usage: unknown;
    const finals: string[] = [];
    for await (const c of await h.gw
      .client(h.key)
      .chat.completions.create({ model: "azure/mini", messages: [{ role: "user", content: "Hi" }], stream: true })) {
      text += c.choices[0]?.delta?.content ?? "";
      if (c.choices[0]?.finish_reason) finals.push(c.choices[0].finish_reason);
      usage = c.usage ?? usage;
    }
    expect({ text, finals, usage }).toEqual({ text: "Hello", finals: ["stop"], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } });
    expect(h.fake.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  test("models: GET <baseUrl>/models?api-version with api-key; only chat-capable models", async () => {
    const settings = { id: "azure", plugin: "azure", baseUrl: "https://contoso.openai.azure.com/openai", apiKey: KEY, options: {} };
    expect(await plugin.models!.request({ settings, apiKey: KEY })).toEqual({
      url: `https://contoso.openai.azure.com/openai/models?api-version=${GA_API_VERSION}`,
      method: "GET",
      headers: { "api-key": KEY },
    });
    const v1 = await plugin.models!.request({ settings: { ...settings, options: { apiVersion: "v1" } }, apiKey: KEY });
    expect(v1.url).toBe("https://contoso.openai.azure.com/openai/v1/models");
    const model = (id: string, chat: boolean) => ({
      id,
      status: "succeeded",
      object: "model",
      created_at: 1_646_126_127,
      lifecycle_status: "generally-available",
      capabilities: { fine_tune: false, inference: true, completion: false, chat_completion: chat, embeddings: !chat },
    });
    expect(
      plugin.models!.response({ object: "list", data: [model("gpt-4o-mini", true), model("text-embedding-3-small", false), { id: "no-capabilities-listed" }] }),
    ).toEqual([{ id: "gpt-4o-mini" }, { id: "no-capabilities-listed" }]);
  });
});
