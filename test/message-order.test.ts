/**
 * The provider receives tools and messages in the client's order: a provider's prompt cache
 * keys on the prefix it is sent, so an adapter that reordered them would make every turn a
 * cache miss (docs/limits.md, "Prompt-cache affinity"). No adapter sorts anything; Anthropic's
 * format moves the system prompt to its own field and joins a tool result with the text after it.
 */
import { afterEach, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { message, textBlock } from "./providers/anthropic.fixture.js";

const SYSTEM = { role: "system", content: "You are a careful assistant." };
const tool = (name: string) => ({ type: "function", function: { name, parameters: { type: "object", properties: {} } } });
const TOOLS = [tool("zulu"), tool("alpha"), tool("mike")];
const MESSAGES = [
  SYSTEM,
  { role: "user", content: "zeta first" },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "zulu", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c1", content: "done" },
  { role: "user", content: "alpha last" },
];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

async function start(fake: FakeUpstream, config: Record<string, unknown>): Promise<TestGateway & { key: string }> {
  const gw = await startGateway(config);
  cleanups.push(
    () => fake.close(),
    () => gw.close(),
  );
  const key = await gw.createKey();
  await gw.addCredits("10");
  return Object.assign(gw, { key });
}

const chat = (gw: TestGateway & { key: string }, model: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(gw.key) },
    body: JSON.stringify({ model, messages: MESSAGES, tools: TOOLS }),
  });

describe("what the provider receives", () => {
  test("OpenAI format: tools and messages in the client's order", async () => {
    const fake = await startFakeUpstream(() => completion("ok"));
    const gw = await start(fake, openaiConfig(fake.url, { server: { compat: "openai" } }));
    expect((await chat(gw, "openai/gpt-4o-mini")).status).toBe(200);
    const sent = fake.requests[0]!.body as { tools: typeof TOOLS; messages: typeof MESSAGES };
    expect(sent.tools.map((t) => t.function.name)).toEqual(["zulu", "alpha", "mike"]);
    expect(sent.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(sent.messages.map((m) => m.content)).toEqual(MESSAGES.map((m) => m.content));
  });

  test("Anthropic: the same order (the system prompt in its own field, the tool result and the next text in one user turn)", async () => {
    const fake = await startFakeUpstream(() => message([textBlock("ok")], { input_tokens: 12, output_tokens: 5 }));
    const gw = await start(fake, {
      providers: { anthropic: { baseUrl: fake.url, apiKey: "sk-ant-affinity-test-7a1b" } },
      models: [
        {
          id: "anthropic/claude-x",
          pricing: { prompt: "3", completion: "15" },
          max_output: 1000,
          endpoints: [{ provider: "anthropic", model: "claude-x-up" }],
        },
      ],
      server: { compat: "openai" },
    });
    expect((await chat(gw, "anthropic/claude-x")).status).toBe(200);
    const sent = fake.requests[0]!.body as { tools: Array<{ name: string }>; system: unknown; messages: Array<{ role: string; content: unknown }> };
    expect(sent.tools.map((t) => t.name)).toEqual(["zulu", "alpha", "mike"]);
    expect(JSON.stringify(sent.system)).toContain("careful assistant");
    const pieces = sent.messages.flatMap((m) =>
      (typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Array<Record<string, unknown>>)).map(
        (b) => `${m.role}:${String(b.text ?? b.name ?? b.content)}`,
      ),
    );
    expect(pieces).toEqual(["user:zeta first", "assistant:zulu", "user:done", "user:alpha last"]);
  });
});
