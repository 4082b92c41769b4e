/**
 * `cache_control` on /v1/chat/completions under compat openai (docs/openai-compat.md
 * "cache_control"), as opencode sends it for a `claude` model (message level, string content)
 * and as content parts carry it: forwarded to Anthropic as block-level `cache_control` (system
 * blocks, the message's last block, the marked part), dropped for an OpenAI-format provider.
 */
import { describe, expect, test } from "vitest";
import { useGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { message, textBlock } from "./providers/anthropic.fixture.js";

const h = useGateway((fakeUrl) => ({
  server: { compat: "openai" },
  providers: { anthropic: { baseUrl: fakeUrl, apiKey: "sk-ant-upstream-cache-1" }, openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-cache-1" } },
  models: [
    { id: "test/claude", pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "anthropic", model: "claude-up" }] },
    { id: "test/gpt", pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "openai", model: "gpt-up" }] },
  ],
}));

const EPHEMERAL = { type: "ephemeral" } as const;
const messages = [
  { role: "system", content: "You are opencode.", cache_control: EPHEMERAL },
  { role: "user", content: "Earlier question", cache_control: EPHEMERAL },
  { role: "assistant", content: "Earlier answer" },
  {
    role: "user",
    content: [
      { type: "text", text: "Long context", cache_control: { type: "ephemeral", ttl: "1h" } },
      { type: "text", text: "The question" },
    ],
  },
];

describe("cache_control on chat messages and content parts", () => {
  test("to Anthropic: block-level cache_control on the system block, the marked message's block and the marked part", async () => {
    h.fake.queue(message([textBlock("ok")], { input_tokens: 10, output_tokens: 2 }));
    const res = await h.post({ model: "test/claude", messages });
    expect(res.status, await res.clone().text()).toBe(200);
    const sent = h.sent();
    expect(sent.system).toEqual([{ type: "text", text: "You are opencode.", cache_control: EPHEMERAL }]);
    expect(sent.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Earlier question", cache_control: EPHEMERAL }] },
      { role: "assistant", content: [{ type: "text", text: "Earlier answer" }] },
      {
        role: "user",
        content: [
          { type: "text", text: "Long context", cache_control: { type: "ephemeral", ttl: "1h" } },
          { type: "text", text: "The question" },
        ],
      },
    ]);
  });

  test("to an OpenAI-format provider: dropped from messages and parts, the rest unchanged", async () => {
    h.fake.queue(completion("ok"));
    const res = await h.post({ model: "test/gpt", messages });
    expect(res.status, await res.clone().text()).toBe(200);
    const sent = h.sent();
    expect(JSON.stringify(sent)).not.toContain("cache_control");
    expect(sent.messages[0]).toEqual({ role: "system", content: "You are opencode." });
    expect(sent.messages[3].content).toEqual([
      { type: "text", text: "Long context" },
      { type: "text", text: "The question" },
    ]);
  });

  test("on tool calls and tool messages (as opencode marks them): the tool_use and tool_result blocks to Anthropic, dropped for OpenAI", async () => {
    const turn = [
      { role: "user", content: "run it" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' }, cache_control: EPHEMERAL }],
      },
      { role: "tool", tool_call_id: "call_1", content: "a.txt", cache_control: EPHEMERAL },
    ];
    const tools = [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }];
    h.fake.queue(message([textBlock("ok")], { input_tokens: 10, output_tokens: 2 }));
    expect((await h.post({ model: "test/claude", messages: turn, tools })).status).toBe(200);
    const [, assistant, result] = h.sent().messages;
    expect(assistant.content).toEqual([{ type: "tool_use", id: "call_1", name: "bash", input: { command: "ls" }, cache_control: EPHEMERAL }]);
    expect(result.content).toEqual([{ type: "tool_result", tool_use_id: "call_1", content: "a.txt", cache_control: EPHEMERAL }]);

    h.fake.queue(completion("ok"));
    expect((await h.post({ model: "test/gpt", messages: turn, tools })).status).toBe(200);
    expect(JSON.stringify(h.sent())).not.toContain("cache_control");
  });

  test("anything but Anthropic's shape is still refused by path", async () => {
    const res = await h.post({ model: "test/claude", messages: [{ role: "user", content: "hi", cache_control: { type: "forever" } }] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe("messages.0.cache_control.type");
    expect(h.fake.requests).toHaveLength(0);
  });
});
