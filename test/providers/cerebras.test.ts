/**
 * Cerebras, the provider added as its own folder plus one line of the built-in list: the shared
 * OpenAI-format conformance suite against a fake speaking OpenAI's wire (Cerebras documents its
 * API as OpenAI-compatible: inference-docs.cerebras.ai/resources/openai), its description, and
 * what it refuses before anything goes upstream.
 */
import { describe, expect, test } from "vitest";
import { describeProvider } from "../helpers/conformance.js";
import { completion, openaiFormatFixture } from "../helpers/openai-wire.js";
import { bundledCatalog } from "../../src/catalog/bundled.js";
import { parseConfig } from "../../src/config/config.js";
import { byokPlugins, loadPlugin, loadProviders } from "../../src/plugin/load.js";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";

describeProvider(openaiFormatFixture("cerebras"));

describe("cerebras describes itself", () => {
  test("its documented base URL and key variable; not one of the eleven BYOK providers", async () => {
    const plugin = await loadPlugin("cerebras");
    expect(plugin.defaults).toEqual({ baseUrl: "https://api.cerebras.ai/v1", apiKeyEnv: "CEREBRAS_API_KEY" });
    expect(plugin.describe).toMatchObject({ displayName: "Cerebras" });
    const byok = (await byokPlugins()).map((p) => p.name);
    expect(byok).toHaveLength(11);
    expect(byok).not.toContain("cerebras");
  });

  test("zero-config: an instance when CEREBRAS_API_KEY is set, none without (not BYOK: no key-less instance)", async () => {
    const withKey = await loadProviders(parseConfig({}, {}), { CEREBRAS_API_KEY: "csk-test" }, process.cwd());
    expect(withKey.get("cerebras")?.settings).toMatchObject({ plugin: "cerebras", baseUrl: "https://api.cerebras.ai/v1", apiKey: "csk-test" });
    expect((await loadProviders(parseConfig({}, {}), {}, process.cwd())).has("cerebras")).toBe(false);
  });

  test("the bundled catalog carries its priced models from genai-prices, served by the cerebras plugin", async () => {
    const models = (await bundledCatalog())(Date.now()).filter((m) => m.ownedBy === "cerebras");
    expect(models.length).toBeGreaterThan(0);
    for (const m of models) {
      expect(m.id.startsWith("cerebras/")).toBe(true);
      expect(m.endpoints).toEqual([{ provider: "cerebras", model: m.id.slice("cerebras/".length) }]);
      expect(m.promptPrice).toBeGreaterThan(0);
    }
  });
});

describe("cerebras under server.compat: openai", () => {
  const h = useGateway(
    (fakeUrl) => ({
      server: { compat: "openai" },
      providers: { cerebras: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-cerebras" } },
      models: [
        { id: "vendor/model", pricing: { prompt: "1", completion: "2" }, max_output: 1000, endpoints: [{ provider: "cerebras", model: "llama-3.3-70b" }] },
      ],
      retry: FAST_RETRY,
    }),
    { body: { model: "vendor/model", messages: [{ role: "user", content: "Hi" }] } },
  );

  test("a developer turn goes out as system (no developer role); json_schema is forwarded as is", async () => {
    h.fake.queue(completion("{}"));
    const response_format = { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } };
    const res = await h.post({
      messages: [
        { role: "developer", content: "Be brief" },
        { role: "user", content: "Hi" },
      ],
      response_format,
    });
    expect(res.status).toBe(200);
    expect(h.fake.requests[0]!.path).toBe("/v1/chat/completions");
    expect(h.fake.requests[0]!.headers.authorization).toBe("Bearer sk-upstream-cerebras");
    expect(h.fake.requests[0]!.body).toMatchObject({
      model: "llama-3.3-70b",
      messages: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "Hi" },
      ],
      response_format,
    });
  });

  test("parallel_tool_calls, logit_bias and images are 400s naming the field; nothing goes upstream", async () => {
    const tool = { type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } };
    const image = { role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] };
    for (const [body, field] of [
      [{ tools: [tool], parallel_tool_calls: false }, "parallel_tool_calls"],
      [{ logit_bias: { "50256": -100 } }, "logit_bias"],
      [{ messages: [image] }, "messages"],
    ] as const) {
      const res = await h.post(body);
      expect(res.status).toBe(400);
      const message: string = ((await res.json()) as any).error.message;
      expect(message, message).toMatch(new RegExp(`^${field}`));
    }
    expect(h.fake.requests).toHaveLength(0);
  });
});
