/**
 * `server.compat: openai` in the core (docs/openai-compat.md): the superset validated strictly
 * inside, explicit nulls as absent, `param` on errors, capabilities decided before any hold
 * or upstream call, failover only among endpoints that serve every field, GET /v1/models/{id}
 * and aliases. Provider translation has its own tests under test/providers/*-tools.test.ts.
 */
import { describe, expect, test } from "vitest";
import { useGateway } from "./helpers/gateway.js";
import { bearer, post } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { message, MODEL as CLAUDE, textBlock } from "./providers/anthropic.fixture.js";

const hi = [{ role: "user", content: "hi" }];
const price = { prompt: "0.15", completion: "0.6" };

/** One fake answers both formats: /v1/messages is Anthropic, the rest OpenAI. */
const bothFormats = (req: { path: string }) =>
  req.path.startsWith("/v1/messages") ? message([textBlock("from anthropic")], { input_tokens: 3, output_tokens: 2 }) : completion("from openai");

function config(fakeUrl: string) {
  return {
    server: { compat: "openai" },
    providers: {
      openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-openai-1111" },
      anthropic: { baseUrl: fakeUrl, apiKey: "sk-ant-upstream-2222" },
    },
    models: [
      { id: "openai/gpt-4o-mini", pricing: price, max_output: 1000, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] },
      {
        id: "openai/text-only",
        pricing: price,
        max_output: 1000,
        capabilities: { images: false, tools: false },
        endpoints: [{ provider: "openai", model: "text-only" }],
      },
      { id: "anthropic/claude", pricing: price, max_output: 1000, endpoints: [{ provider: "anthropic", model: CLAUDE }] },
      // Anthropic first in a fixed order: a field it cannot serve must skip it, not fail.
      {
        id: "mixed/model",
        pricing: price,
        max_output: 1000,
        order: "fixed",
        endpoints: [
          { provider: "anthropic", model: CLAUDE },
          { provider: "openai", model: "gpt-4o-mini" },
        ],
      },
    ],
    // Globs after exact names on purpose: an exact name wins wherever it is listed.
    aliases: {
      "claude-*-vip": "anthropic/claude",
      "claude-*": "openai/gpt-4o-mini",
      "gpt-4o-mini": "openai/gpt-4o-mini",
      claude: "anthropic/claude",
      ghost: "openai/not-configured",
      "gpt-?": "anthropic/claude",
    },
  };
}

const h = useGateway(config, { credits: "10", body: { model: "openai/gpt-4o-mini", messages: hi }, fallback: bothFormats });

async function openaiError(res: Response, status: number, code: string | null, param: string | null) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "request_id", "type"]);
  expect(body.error).toMatchObject({ code, param, request_id: res.headers.get("x-request-id") });
  return body.error as { message: string; type: string };
}

const ledgerRequests = async () => (await h.gw.store.usage({})).reduce((n, r) => n + r.requests, 0);

describe("validation under openai", () => {
  test("the superset's fields are accepted and forwarded to an OpenAI-format provider", async () => {
    const body = {
      messages: [
        { role: "developer", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
          ],
        },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "lookup",
            description: "Looks up",
            parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
            strict: true,
          },
        },
      ],
      tool_choice: { type: "function", function: { name: "lookup" } },
      parallel_tool_calls: false,
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" }, strict: true } },
      max_completion_tokens: 50,
      user: "u-1",
      metadata: { team: "a" },
      logprobs: true,
      top_logprobs: 2,
      logit_bias: { "50256": -100 },
      service_tier: "auto",
      store: false,
      modalities: ["text"],
      seed: 7,
    };
    expect((await h.post(body)).status).toBe(200);
    const { model: _m, ...sent } = h.sent();
    const { model: _model, ...expected } = { ...body, model: "" };
    expect(sent).toEqual(expected);
  });

  test("explicit nulls are absent: accepted, and not sent upstream", async () => {
    const res = await h.post({
      temperature: null,
      tools: null,
      tool_choice: null,
      user: null,
      stop: null,
      response_format: null,
      messages: [{ role: "user", content: "hi", name: null }],
    });
    expect(res.status).toBe(200);
    expect(h.sent()).toEqual({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
  });

  test.each([
    ["an unknown top-level field", { foo: 1 }, "foo", "foo: Unrecognized key"],
    [
      "an unknown field inside a tool",
      { tools: [{ type: "function", function: { name: "f", x: 1 } }] },
      "tools.0.function.x",
      "tools.0.function.x: Unrecognized key",
    ],
    [
      "an unknown field inside response_format",
      { response_format: { type: "json_schema", json_schema: { name: "a", schema: {}, extra: 1 } } },
      "response_format.json_schema.extra",
      "response_format.json_schema.extra: Unrecognized key",
    ],
    [
      "both output limits",
      { max_tokens: 5, max_completion_tokens: 5 },
      "max_completion_tokens",
      "max_completion_tokens: Send max_tokens or max_completion_tokens, not both",
    ],
    ["top_logprobs without logprobs", { top_logprobs: 2 }, "top_logprobs", "top_logprobs: Requires logprobs: true"],
    ["a bad content part", { messages: [{ role: "user", content: [{ type: "audio", data: "x" }] }] }, "messages.0.content", null],
    [
      "an http (not https) image URL",
      { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "http://x/a.png" } }] }] },
      "messages.0.content.0.image_url.url",
      null,
    ],
    ["a bad tool_choice", { tool_choice: "sometimes" }, "tool_choice", null],
    ["a tool name with spaces", { tools: [{ type: "function", function: { name: "look up" } }] }, "tools.0.function.name", null],
  ])("%s -> 400 with param", async (_name, extra, param, message) => {
    const e = await openaiError(await h.post(extra), 400, null, param);
    expect(e.type).toBe("invalid_request_error");
    if (message) expect(e.message).toBe(message);
    expect(h.fake.requests).toHaveLength(0);
  });

  test("a 404 for an unknown model names param model; a missing key is a 401 with param null", async () => {
    await openaiError(await h.post({ model: "openai/nope" }), 404, "model_not_found", "model");
    await openaiError(await post(h.gw.url, "/v1/chat/completions", { model: "openai/gpt-4o-mini", messages: hi }), 401, "invalid_api_key", null);
  });
});

describe("capabilities, before any hold", () => {
  test("images to a model the catalog marks text-only: 400 unsupported_parameter naming the part; nothing upstream, no ledger row", async () => {
    const before = await ledgerRequests();
    const balance = await h.gw.store.balance("default");
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } };
    const e = await openaiError(
      await h.post({ model: "openai/text-only", messages: [{ role: "user", content: [{ type: "text", text: "x" }, image] }] }),
      400,
      "unsupported_parameter",
      "messages.0.content.1",
    );
    expect(e.message).toContain("does not support image input");
    expect(h.fake.requests).toHaveLength(0);
    expect(await ledgerRequests()).toBe(before);
    expect(await h.gw.store.balance("default")).toBe(balance);
  });

  test("tools to a model without tool calling: 400 param tools", async () => {
    await openaiError(
      await h.post({ model: "openai/text-only", tools: [{ type: "function", function: { name: "f" } }] }),
      400,
      "unsupported_parameter",
      "tools",
    );
    expect(h.fake.requests).toHaveLength(0);
  });

  test("a field no endpoint's provider translates (logit_bias on Anthropic): 400 param logit_bias, nothing upstream", async () => {
    const before = await ledgerRequests();
    const e = await openaiError(await h.post({ model: "anthropic/claude", logit_bias: { "1": 5 } }), 400, "unsupported_parameter", "logit_bias");
    expect(e.message).toContain("anthropic");
    expect(h.fake.requests).toHaveLength(0);
    expect(await ledgerRequests()).toBe(before);
  });

  test("failover only picks endpoints that serve every field: logit_bias skips the Anthropic endpoint listed first", async () => {
    const res = await h.post({ model: "mixed/model", logit_bias: { "1": 5 } });
    expect(res.status).toBe(200);
    expect(h.fake.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
    // Without the field, the fixed order sends it to Anthropic first.
    expect((await h.post({ model: "mixed/model" })).status).toBe(200);
    expect(h.fake.requests.at(-1)!.path).toBe("/v1/messages");
  });
});

describe("answers under openai", () => {
  test("message.refusal and choices[].logprobs are present (null), as OpenAI's schema requires", async () => {
    const res = await h.post({});
    const body = (await res.json()) as any;
    expect(body.choices[0]).toEqual({ index: 0, message: { role: "assistant", content: "from openai", refusal: null }, logprobs: null, finish_reason: "stop" });
  });
});

describe("models", () => {
  const get = (path: string) => fetch(`${h.gw.url}${path}`, { headers: bearer(h.key) });

  test("GET /v1/models/{id} returns one entry of GET /v1/models, a vendor/model id with its slash as is", async () => {
    const list = (await (await get("/v1/models")).json()) as any;
    const one = await (await get("/v1/models/openai/gpt-4o-mini")).json();
    expect(one).toEqual(list.data.find((m: { id: string }) => m.id === "openai/gpt-4o-mini"));
    expect((await get("/v1/models/openai%2Fgpt-4o-mini")).status).toBe(200);
    await openaiError(await get("/v1/models/openai/none"), 404, "model_not_found", "model");
    // A malformed escape is the client's 400, never a gateway 500.
    await openaiError(await get("/v1/models/%E0%A4%A"), 400, null, null);
  });

  test("aliases are listed with alias_of when their target is usable, and resolve before routing", async () => {
    const list = (await (await get("/v1/models")).json()) as any;
    const alias = list.data.find((m: { id: string }) => m.id === "gpt-4o-mini");
    expect(alias).toMatchObject({ id: "gpt-4o-mini", alias_of: "openai/gpt-4o-mini", object: "model", pricing: { prompt: "0.15", completion: "0.6" } });
    expect(list.data.find((m: { id: string }) => m.id === "ghost")).toBeUndefined();
    expect((await get("/v1/models/claude")).status).toBe(200);
    const res = await h.post({ model: "claude" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).model).toBe("anthropic/claude");
    expect(h.sent().model).toBe(CLAUDE);
  });

  test("glob aliases: an exact name first, then the first glob listed that matches; listed as written", async () => {
    const routed = async (model: string) => {
      const res = await h.post({ model });
      expect(res.status).toBe(200);
      return ((await res.json()) as { model: string }).model;
    };
    expect(await routed("claude-sonnet-4-5")).toBe("openai/gpt-4o-mini"); // claude-*
    expect(await routed("claude-opus-5-vip")).toBe("anthropic/claude"); // claude-*-vip, listed first
    expect(await routed("claude")).toBe("anthropic/claude"); // exact, though claude-* is listed before it
    expect(await routed("gpt-5")).toBe("anthropic/claude"); // gpt-? matches one character
    await openaiError(await h.post({ model: "gpt-55" }), 404, "model_not_found", "model"); // ? is one character, not two
    const list = (await (await get("/v1/models")).json()) as { data: { id: string; alias_of?: string }[] };
    expect(list.data.find((m) => m.id === "claude-*")).toMatchObject({ alias_of: "openai/gpt-4o-mini" });
    expect(await (await get("/v1/models/claude-haiku-4-5")).json()).toMatchObject({ id: "claude-haiku-4-5", alias_of: "openai/gpt-4o-mini" });
  });
});

describe("openapi", () => {
  test("describes the superset, the openai answers and the streamed tool-call fragment with index required", async () => {
    const doc = (await (await fetch(`${h.gw.url}/v1/openapi.json`)).json()) as any;
    const s = doc.components.schemas;
    expect(Object.keys(s.OpenAIChatCompletionRequest.properties)).toEqual(
      expect.arrayContaining(["tools", "tool_choice", "response_format", "max_completion_tokens", "reasoning_effort"]),
    );
    const fragment = s.OpenAIChatCompletionChunk.properties.choices.items.properties.delta.properties.tool_calls.items;
    expect(fragment.required).toEqual(["index"]);
    expect(Object.keys(fragment.properties)).toEqual(["index", "id", "type", "function"]);
    expect(s.OpenAIError.properties.error.required).toContain("param");
    expect(doc.paths["/v1/models/{id}"].get).toBeDefined();
  });
});
