/**
 * Every OpenAI-format preset passes the shared conformance suite, and a new OpenAI-compatible
 * provider needs no code: a config entry naming the `openai-compatible` plugin serves it.
 */
import { describe, expect, test } from "vitest";
import { describeProvider } from "../helpers/conformance.js";
import { useGateway } from "../helpers/gateway.js";
import { completion, stream } from "../helpers/openai-wire.js";
import { loadPlugin } from "../../src/plugin/load.js";
import { presetFixtures } from "./presets.fixture.js";

for (const fixture of presetFixtures) describeProvider(fixture);

describe("preset defaults follow each provider's SDK base URL and key variable", () => {
  test.each([
    ["mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"],
    ["groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"],
    ["deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY"],
    ["xai", "https://api.x.ai/v1", "XAI_API_KEY"],
    ["together", "https://api.together.xyz/v1", "TOGETHER_API_KEY"],
    ["fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"],
  ])("%s", async (name, baseUrl, apiKeyEnv) => {
    const plugin = await loadPlugin(name);
    expect(plugin.name).toBe(name);
    expect(plugin.defaults).toEqual({ baseUrl, apiKeyEnv });
  });
});

describe("a new OpenAI-compatible provider is a config entry", () => {
  const h = useGateway((fakeUrl) => ({
    providers: { vllm: { plugin: "openai-compatible", baseUrl: `${fakeUrl}/v1` } },
    models: [
      { id: "vllm/llama-3.1-8b", pricing: { prompt: "0", completion: "0" }, endpoints: [{ provider: "vllm", model: "meta-llama/Llama-3.1-8B-Instruct" }] },
    ],
  }));

  test("it answers and streams under the instance's name", async () => {
    h.fake.queue(completion("served by vllm"), stream(["str", "eamed"]));
    const client = h.gw.client(h.key);
    const r = await client.chat.completions.create({ model: "vllm/llama-3.1-8b", messages: [{ role: "user", content: "Hi" }] });
    expect(r.choices[0]!.message.content).toBe("served by vllm");
    expect(h.fake.requests[0]).toMatchObject({ method: "POST", path: "/v1/chat/completions", body: { model: "meta-llama/Llama-3.1-8B-Instruct" } });
    expect(h.fake.requests[0]!.headers.authorization).toBeUndefined();

    let text = "";
    for await (const c of await client.chat.completions.create({ model: "vllm/llama-3.1-8b", messages: [{ role: "user", content: "Hi" }], stream: true })) {
      text += c.choices[0]?.delta?.content ?? "";
    }
    expect(text).toBe("streamed");
    expect(h.fake.requests[1]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });
});
