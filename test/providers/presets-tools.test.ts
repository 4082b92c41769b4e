/**
 * What each OpenAI-format preset does with the OpenAI superset (server.compat: openai): the
 * forms its API reference documents (cited in each providers/<name>/index.ts), and a 400 with
 * `param`, before any upstream call, for what it lacks. One fake stands for every upstream; the
 * paths tell them apart. Answers are OpenAI-format chat.completion objects.
 */
import { describe, expect, test } from "vitest";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { completion } from "../helpers/openai-wire.js";

const PLUGINS = {
  groq: "/openai/v1",
  deepseek: "/deepseek",
  xai: "/xai/v1",
  together: "/together/v1",
  fireworks: "/inference/v1",
  "openai-compatible": "/local/v1",
} as const;
type Plugin = keyof typeof PLUGINS | "azure";

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: {
      ...Object.fromEntries(Object.entries(PLUGINS).map(([plugin, path]) => [plugin, { baseUrl: `${fakeUrl}${path}`, apiKey: `sk-${plugin}` }])),
      azure: { baseUrl: `${fakeUrl}/openai`, apiKey: "azure-key", apiVersion: "2024-06-01" },
    },
    models: [...Object.keys(PLUGINS), "azure"].map((plugin) => ({
      id: `${plugin}/m`,
      pricing: { prompt: "1", completion: "2" },
      max_output: 1000,
      endpoints: [{ provider: plugin, model: "upstream-m" }],
    })),
    retry: FAST_RETRY,
  }),
  { credits: "100", fallback: () => completion("ok") },
);

const post = (plugin: Plugin, extra: Record<string, unknown>) => h.post({ model: `${plugin}/m`, messages: [{ role: "user", content: "Hi" }], ...extra });
const image = { type: "image_url", image_url: { url: "https://example.com/cat.png" } };
const developerTurn = [
  {
    role: "developer",
    content: [
      { type: "text", text: "Be " },
      { type: "text", text: "brief." },
    ],
  },
  { role: "user", content: [{ type: "text", text: "Hi" }] },
];

describe("what each preset sends", () => {
  test.each(["groq", "deepseek", "xai", "together", "fireworks", "openai-compatible", "azure"] as const)(
    "%s: developer goes out as a system message",
    async (plugin) => {
      expect((await post(plugin, { messages: developerTurn })).status).toBe(200);
      expect(h.sent().messages[0].role).toBe("system");
    },
  );

  test("deepseek takes strings only: text parts are joined; the limit is max_tokens", async () => {
    expect(
      (
        await post("deepseek", {
          messages: developerTurn,
          max_completion_tokens: 20,
          tools: [{ type: "function", function: { name: "f" } }],
          tool_choice: "required",
        })
      ).status,
    ).toBe(200);
    expect(h.sent().messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
    expect(h.sent()).toMatchObject({ max_tokens: 20, tool_choice: "required" });
    expect(h.sent()).not.toHaveProperty("max_completion_tokens");
  });

  test("groq: service_tier default is on_demand, reasoning_effort minimal is low, max_completion_tokens as sent", async () => {
    expect((await post("groq", { service_tier: "default", reasoning_effort: "minimal", max_completion_tokens: 30, user: "u" })).status).toBe(200);
    expect(h.sent()).toMatchObject({ service_tier: "on_demand", reasoning_effort: "low", max_completion_tokens: 30, user: "u" });
    expect(h.fake.requests.at(-1)!.path).toBe("/openai/v1/chat/completions");
  });

  test("together: a json_schema's schema goes in Together's {type, schema} form", async () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    expect((await post("together", { response_format: { type: "json_schema", json_schema: { name: "x", schema } } })).status).toBe(200);
    expect(h.sent().response_format).toEqual({ type: "json_schema", schema });
  });

  test("fireworks and xai take OpenAI's json_schema form; xai forwards logprobs and logit_bias", async () => {
    const format = { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } };
    expect((await post("fireworks", { response_format: format })).status).toBe(200);
    expect(h.sent().response_format).toEqual(format);
    expect((await post("xai", { response_format: format, logprobs: true, top_logprobs: 2, logit_bias: { "1": 5 } })).status).toBe(200);
    expect(h.sent()).toMatchObject({ response_format: format, logprobs: true, top_logprobs: 2, logit_bias: { "1": 5 } });
  });

  test("azure on api-version 2024-06-01: max_completion_tokens is sent as max_tokens", async () => {
    expect((await post("azure", { max_completion_tokens: 40 })).status).toBe(200);
    expect(h.fake.requests.at(-1)!.path).toBe("/openai/deployments/upstream-m/chat/completions?api-version=2024-06-01");
    expect(h.sent()).toMatchObject({ max_tokens: 40 });
    expect(h.sent()).not.toHaveProperty("max_completion_tokens");
  });

  test("harmless values of fields a preset lacks are left out: deepseek gets no logit_bias {}, store false or parallel_tool_calls true", async () => {
    expect(
      (await post("deepseek", { logit_bias: {}, store: false, user: "u", tools: [{ type: "function", function: { name: "f" } }], parallel_tool_calls: true }))
        .status,
    ).toBe(200);
    for (const field of ["logit_bias", "store", "user", "parallel_tool_calls"]) expect(h.sent()).not.toHaveProperty(field);
  });
});

describe("what a preset lacks is a 400 naming it, and nothing goes upstream", () => {
  test.each([
    ["deepseek", { messages: [{ role: "user", content: [image] }] }, "messages.0.content.0"],
    ["deepseek", { response_format: { type: "json_schema", json_schema: { name: "x", schema: {} } } }, "response_format"],
    ["groq", { logprobs: true }, "logprobs"],
    ["groq", { service_tier: "priority" }, "service_tier"],
    ["xai", { reasoning_effort: "medium" }, "reasoning_effort"],
    ["together", { logprobs: true }, "logprobs"],
    ["fireworks", { logit_bias: { "1": 2 } }, "logit_bias"],
    ["openai-compatible", { tools: [{ type: "function", function: { name: "f" } }], parallel_tool_calls: false }, "parallel_tool_calls"],
    ["azure", { response_format: { type: "json_schema", json_schema: { name: "x", schema: {} } } }, "response_format"],
  ] as const)("%s with %j: param %s", async (plugin, extra, param) => {
    const res = await post(plugin, extra);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: "unsupported_parameter", param });
    expect(h.fake.requests).toHaveLength(0);
  });
});
