/**
 * POST /v1/responses beyond the client round trips (test/clients/responses.test.ts): stored
 * responses per account (GET, DELETE, previous_response_id; another account gets 404,
 * `store: false` keeps nothing), fields a model cannot honour refused before any charge,
 * exact usage and cost on the ledger under endpoint `responses`, the incomplete and failed
 * terminal states, and the replay of earlier output items (their known fields accepted, others refused). Upstreams are OpenAI-format
 * fakes (chat.completion / chat.completion.chunk as the API reference shows them).
 */
import { describe, expect, test } from "vitest";
import { startGateway, useGateway } from "./helpers/gateway.js";
import { completion, stream } from "./helpers/openai-wire.js";

const MODEL = "test/gpt";
const wireUsage = { prompt_tokens: 40, completion_tokens: 9 };
/** $1 and $2 per 1M tokens: 40 × 1,000 + 9 × 2,000 nano-USD. */
const COST = 58_000;

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: {
      // An OpenAI-format provider without a Responses API of its own: the translated path (OpenAI's native one: responses-codex-native.test.ts).
      local: { plugin: "openai-compatible", baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-responses-1" },
      anthropic: { baseUrl: fakeUrl, apiKey: "sk-ant-upstream-responses-1" },
    },
    models: [
      { id: MODEL, pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "local", model: "gpt-up" }] },
      { id: "test/claude", pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "anthropic", model: "claude-up" }] },
      {
        id: "test/plain",
        capabilities: { structured_output: false },
        pricing: { prompt: "1", completion: "2" },
        max_output: 4096,
        endpoints: [{ provider: "local", model: "plain-up" }],
      },
    ],
  }),
  { account: "alice" },
);

function call(method: string, path: string, key: string, body?: unknown): Promise<Response> {
  return fetch(`${h.gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

const create = (body: Record<string, unknown>, key = h.key) => call("POST", "/v1/responses", key, { model: MODEL, ...body });

const json = (res: Response): Promise<any> => res.json();

async function expectErr(res: Response, status: number, code: string | null, param: string | null = null): Promise<string> {
  const body = (await res.json()) as { error: { type: string; code: string | null; param: string | null; message: string; request_id: string } };
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.error).toMatchObject({ code, param, request_id: res.headers.get("x-request-id") });
  return body.error.message;
}

/** The SSE events of a streamed answer, in order. */
async function events(res: Response): Promise<any[]> {
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("event: "))
    .map((f) => {
      const [event, data] = f.split("\n");
      const parsed = JSON.parse(data!.slice("data: ".length));
      expect(event).toBe(`event: ${parsed.type}`);
      return parsed;
    });
}

const balance = async () => (await h.gw.store.balance("alice"))!;

/** The ledger's totals for endpoint `responses` (rows of earlier tests included: compare deltas). */
async function totals() {
  const rows = (await h.gw.store.usage({ account: "alice" })).filter((r) => r.endpoint === "responses");
  return rows.reduce(
    (t, r) => ({ requests: t.requests + r.requests, prompt: t.prompt + r.promptTokens, completion: t.completion + r.completionTokens, cost: t.cost + r.cost }),
    { requests: 0, prompt: 0, completion: 0, cost: 0n },
  );
}

/** A chat.completion stopped by the output limit. */
function cutAnswer() {
  const reply = completion("cut", wireUsage) as { json: { choices: Array<{ finish_reason: string }> } };
  reply.json.choices[0]!.finish_reason = "length";
  return reply;
}

describe("stored responses belong to their account", () => {
  test("the owner reads and deletes it; another account gets 404 on GET, DELETE and previous_response_id, nothing upstream", async () => {
    h.fake.queue(completion("Hello Ada.", wireUsage));
    const made = await json(await create({ input: "My name is Ada." }));
    const got = await call("GET", `/v1/responses/${made.id}`, h.key);
    expect(got.status).toBe(200);
    expect(await json(got)).toEqual(made);

    const mallory = await h.gw.createKey({ account: "mallory" });
    await h.gw.addCredits("10", "mallory");
    await expectErr(await call("GET", `/v1/responses/${made.id}`, mallory), 404, "response_not_found");
    await expectErr(await call("DELETE", `/v1/responses/${made.id}`, mallory), 404, "response_not_found");
    await expectErr(await create({ previous_response_id: made.id, input: "What is my name?" }, mallory), 404, "response_not_found", "previous_response_id");
    expect(h.fake.requests).toHaveLength(1);

    const deleted = await call("DELETE", `/v1/responses/${made.id}`, h.key);
    expect(await json(deleted)).toEqual({ id: made.id, object: "response", deleted: true });
    await expectErr(await call("GET", `/v1/responses/${made.id}`, h.key), 404, "response_not_found");
    await expectErr(await create({ previous_response_id: made.id, input: "Again?" }), 404, "response_not_found", "previous_response_id");
    await expectErr(await call("GET", "/v1/responses/resp_unknown", h.key), 404, "response_not_found");
  });

  test("store: false keeps nothing: not readable, not continuable", async () => {
    h.fake.queue(completion("Not kept.", wireUsage));
    const made = await json(await create({ input: "Hi", store: false }));
    expect(made.store).toBe(false);
    await expectErr(await call("GET", `/v1/responses/${made.id}`, h.key), 404, "response_not_found");
    await expectErr(await create({ previous_response_id: made.id, input: "Again" }), 404, "response_not_found", "previous_response_id");
  });

  test("a streamed response is stored before its terminal event: the next request continues from it at once", async () => {
    h.fake.queue(stream(["Hello ", "Ada."], wireUsage), completion("Ada.", wireUsage));
    const first = await events(await create({ input: "My name is Ada.", stream: true }));
    const done = first.at(-1);
    expect(done.type).toBe("response.completed");
    const second = await json(await create({ previous_response_id: done.response.id, input: "Name?" }));
    expect(second.output_text ?? second.output[0].content[0].text).toBe("Ada.");
    expect(h.fake.requests[1]!.body.messages).toEqual([
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: "Hello Ada." },
      { role: "user", content: "Name?" },
    ]);
  });

  test("a three-turn chain replays every earlier turn in order", async () => {
    h.fake.queue(completion("One.", wireUsage), completion("Two.", wireUsage), completion("Three.", wireUsage));
    const a = await json(await create({ input: "1" }));
    const b = await json(await create({ input: "2", previous_response_id: a.id }));
    await create({ input: "3", previous_response_id: b.id });
    expect(h.fake.requests[2]!.body.messages.map((m: any) => m.content)).toEqual(["1", "One.", "2", "Two.", "3"]);
  });
});

describe("refusals before any charge", () => {
  test("fields the model or its provider cannot honour: 400 unsupported_parameter naming the Responses field", async () => {
    const before = { balance: await balance(), ...(await totals()) };
    await expectErr(await create({ model: "test/claude", input: "x", top_logprobs: 3 }), 400, "unsupported_parameter", "top_logprobs");
    const format = { format: { type: "json_schema", name: "r", schema: { type: "object" } } };
    const msg = await expectErr(await create({ model: "test/plain", input: "x", text: format }), 400, "unsupported_parameter", "text.format");
    expect(msg).toMatch(/^text\.format: /);
    await expectErr(
      await create({ input: [{ role: "user", content: [{ type: "input_file", file_id: "file_1" }] }] }),
      400,
      "unsupported_parameter",
      "input.0.content.0",
    );
    expect(h.fake.requests).toHaveLength(0);
    expect({ balance: await balance(), ...(await totals()) }).toEqual(before);
  });

  test("strict at the top level, strict inside tools and text; a tool kind nobody defines is refused by name (hosted ones: test/responses-codex.test.ts)", async () => {
    expect(await expectErr(await create({ input: "x", conversation: "conv_1" }), 400, null, "conversation")).toBe("conversation: Unrecognized key");
    await expectErr(await create({ input: "x", tools: [{ type: "teleport" }] }), 400, null, "tools.0.type");
    await expectErr(await create({ input: "x", reasoning: { effort: "low", summary: "sometimes" } }), 400, null, "reasoning.summary");
    await expectErr(await create({}), 400, null, "input");
    expect(h.fake.requests).toHaveLength(0);
  });

  test("lenient inside input items: fields replayed from earlier output (id, status, annotations, logprobs, phase) are accepted", async () => {
    h.fake.queue(completion("ok", wireUsage));
    const res = await create({
      input: [
        { role: "user", content: "Hi" },
        {
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          phase: "final_answer",
          content: [{ type: "output_text", text: "Hello.", annotations: [], logprobs: [] }],
        },
        { type: "reasoning", id: "rs_1", summary: [] },
        { role: "user", content: [{ type: "input_text", text: "Again" }] },
      ],
    });
    expect(res.status).toBe(200);
    expect(h.fake.requests[0]!.body.messages).toEqual([
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello." },
      { role: "user", content: [{ type: "text", text: "Again" }] },
    ]);
  });

  test("any other field inside an input item is refused naming its path, under strict and openai; dropped under passthrough", async () => {
    const item = { role: "user", content: [{ type: "input_text", text: "Hi", bar: 2 }], foo: 1 };
    const message = await expectErr(await create({ input: [{ role: "user", content: "Hi" }, item] }), 400, null, "input.1.content.0.bar");
    expect(message.split("; ").sort()).toEqual(["input.1.content.0.bar: Unrecognized key", "input.1.foo: Unrecognized key"]);
    await expectErr(await create({ input: [{ type: "function_call", call_id: "c1", name: "f", arguments: "{}", extra: true }] }), 400, null, "input.0.extra");
    expect(h.fake.requests).toHaveLength(0);

    const passthrough = await startGateway({
      server: { compat: "passthrough" },
      providers: { local: { plugin: "openai-compatible", baseUrl: `${h.fake.url}/v1`, apiKey: "sk-upstream-responses-1" } },
      models: [{ id: MODEL, pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "local", model: "gpt-up" }] }],
    });
    try {
      const key = await passthrough.createKey({ account: "alice" });
      await passthrough.addCredits("1", "alice");
      h.fake.queue(completion("ok", wireUsage));
      const res = await fetch(`${passthrough.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, input: [item] }),
      });
      expect(res.status).toBe(200);
      expect(h.fake.requests[0]!.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
    } finally {
      await passthrough.close();
    }
  });
});

describe("input items", () => {
  test("input_image parts become image_url parts; a function_call_output's text parts one string; a call joins the assistant turn before it", async () => {
    h.fake.queue(completion("A cat.", wireUsage));
    const png = "data:image/png;base64,iVBORw0KGgo=";
    await create({
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "What is this?" },
            { type: "input_image", image_url: png, detail: "low" },
          ],
        },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me look.", annotations: [] }] },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "zoom", arguments: "{}", status: "completed" },
        {
          type: "function_call_output",
          call_id: "call_1",
          output: [
            { type: "input_text", text: "zoomed " },
            { type: "input_text", text: "in" },
          ],
        },
      ],
    });
    expect(h.fake.requests[0]!.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: png, detail: "low" } },
        ],
      },
      { role: "assistant", content: "Let me look.", tool_calls: [{ id: "call_1", type: "function", function: { name: "zoom", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_1", content: "zoomed in" },
    ]);
  });
});

describe("usage, cost and ledger", () => {
  for (const streamed of [false, true]) {
    test(`usage is the provider's, the cost exact, the ledger row marked responses (${streamed ? "streamed" : "create"})`, async () => {
      const before = { balance: await balance(), ...(await totals()) };
      h.fake.queue(streamed ? stream(["Hi ", "there"], wireUsage) : completion("Hi there", wireUsage));
      const res = await create({ input: "Hi", stream: streamed });
      const r = streamed ? (await events(res)).at(-1).response : await res.json();
      expect(r.usage).toEqual({
        input_tokens: 40,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 9,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 49,
      });
      // A stream is settled right after its last event: wait for the row.
      await expect.poll(async () => (await totals()).requests).toBe(before.requests + 1);
      const after = await totals();
      expect({ prompt: after.prompt - before.prompt, completion: after.completion - before.completion, cost: after.cost - before.cost }).toEqual({
        prompt: 40,
        completion: 9,
        cost: BigInt(COST),
      });
      expect(before.balance - (await balance())).toBe(BigInt(COST));
      expect(h.fake.requests[0]!.body.model).toBe("gpt-up");
      expect(h.fake.requests[0]!.body.stream ?? false).toBe(streamed);
    });
  }
});

describe("terminal states", () => {
  test("cut by max_output_tokens: status incomplete with its reason (JSON), response.incomplete (stream)", async () => {
    h.fake.queue(cutAnswer(), stream(["cu", "t"], wireUsage, { finish: "length" }));
    const answer = await json(await create({ input: "x", max_output_tokens: 2 }));
    expect(h.fake.requests[0]!.body.max_completion_tokens ?? h.fake.requests[0]!.body.max_tokens).toBe(2);
    expect(answer).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [{ status: "incomplete", content: [{ text: "cut" }] }],
    });
    const evs = await events(await create({ input: "x", max_output_tokens: 2, stream: true }));
    const last = evs.at(-1);
    expect(last.type).toBe("response.incomplete");
    expect(last.response).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [{ status: "incomplete", content: [{ text: "cut" }] }],
    });
  });

  test("an upstream that fails after the first byte: response.failed carrying error server_error, no further events", async () => {
    const before = (await totals()).requests;
    h.fake.queue(stream(["Hel", "lo"], wireUsage, { cut: true, delayMs: 20 }));
    const evs = await events(await create({ input: "x", stream: true }));
    const last = evs.at(-1);
    expect(last.type).toBe("response.failed");
    expect(last.response).toMatchObject({ status: "failed", error: { code: "server_error" }, usage: null });
    expect(evs.map((e) => e.sequence_number)).toEqual(evs.map((_, i) => i));
    await expect.poll(async () => (await totals()).requests, { timeout: 10_000 }).toBe(before + 1); // billed for what was delivered
  });
});

describe("the HTTP surface", () => {
  test("405 for other methods, GET /v1/responses/{id} and DELETE only; /v1/openapi.json describes the endpoints", async () => {
    const put = await call("PUT", "/v1/responses/resp_x", h.key, {});
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, DELETE");
    expect((await call("GET", "/v1/responses", h.key)).status).toBe(405);
    const doc = await json(await fetch(`${h.gw.url}/v1/openapi.json`));
    expect(Object.keys(doc.paths["/v1/responses"])).toEqual(["post"]);
    expect(Object.keys(doc.paths["/v1/responses/{id}"]).sort()).toEqual(["delete", "get"]);
    expect(doc.components.schemas.CreateResponseRequest.properties.previous_response_id).toBeDefined();
    expect(doc.components.schemas.Response.required).toContain("output");
  });
});
