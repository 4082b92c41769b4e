/**
 * /v1/responses routed to OpenAI travels natively to OpenAI's own /v1/responses
 * (docs/responses.md "Native or translated"): the fake (an OpenAI Responses fake,
 * helpers/responses-wire.ts) receives Codex's request as sent (custom tools with their grammar,
 * namespace and hosted tools, client_metadata, include, reasoning.summary) with the upstream
 * model name and `store: false`; the answer is OpenAI's but for the gateway's id, model and
 * usage; a stream is relayed event by event; the cost is the Responses usage at list prices
 * (cached input at the cache price) exactly; previous_response_id is the gateway's own store,
 * the provider getting the whole conversation. Azure OpenAI: its v1 API's /responses with `api-key`.
 */
import { describe, expect, test } from "vitest";
import { useGateway } from "./helpers/gateway.js";
import { rows } from "./helpers/rows.js";
import { messageItem, responsesAnswer, responsesStream } from "./helpers/responses-wire.js";

const MODEL = "test/gpt";
const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: { openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-native-1" } },
    models: [
      {
        id: MODEL,
        pricing: { prompt: "1", completion: "2", cache_read: "0.5" },
        max_output: 4096,
        endpoints: [{ provider: "openai", model: "gpt-up" }],
      },
    ],
  }),
  { account: "native" },
);

/** 1000 input (400 cached), 300 output (120 reasoning): 600 × 1,000 + 400 × 500 + 300 × 2,000 nano-USD. */
const USAGE = { input_tokens: 1000, cached_tokens: 400, output_tokens: 300, reasoning_tokens: 120 };
const COST = 1_400_000;

const create = (body: Record<string, unknown>) =>
  fetch(`${h.gw.url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, ...body }),
  });

const ledger = (requestId: string | null) =>
  rows<{ prompt_tokens: number; completion_tokens: number; cost: number; endpoint: string; usage_source: string }>(
    h.gw.db,
    "SELECT prompt_tokens, completion_tokens, cost, endpoint, usage_source FROM ledger WHERE request_id = ?",
    requestId,
  );

const applyPatch = { type: "custom", name: "apply_patch", description: "Edit files.", format: { type: "grammar", syntax: "lark", definition: "start: patch" } };
const codexRequest = {
  input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
  tools: [
    { type: "function", name: "exec_command", strict: false, parameters: { type: "object", properties: { cmd: { type: "string" } } } },
    applyPatch,
    {
      type: "namespace",
      name: "multi_agent_v1",
      description: "Sub-agents.",
      tools: [{ type: "function", name: "spawn_agent", parameters: { type: "object" } }],
    },
    { type: "tool_search", execution: "client", description: "Tool discovery", parameters: { type: "object" } },
    { type: "web_search", external_web_access: true },
  ],
  tool_choice: "auto",
  parallel_tool_calls: true,
  reasoning: { effort: "medium", summary: "auto" },
  include: ["reasoning.encrypted_content"],
  prompt_cache_key: "pck-1",
  client_metadata: { thread_id: "t-1" },
  text: { verbosity: "low" },
};
const reasoning = { id: "rs_6808709f6fcc8191ad2e2fdd784017b3", type: "reasoning", summary: [], encrypted_content: "gAAAAABoCHCf..." };
const customCall = {
  id: "ctc_1",
  type: "custom_tool_call",
  status: "completed",
  call_id: "call_patch_1",
  name: "apply_patch",
  input: "*** Begin Patch\n*** End Patch\n",
};

describe("native to OpenAI's Responses API", () => {
  test("the request reaches /v1/responses as sent (custom, namespace and hosted tools; Codex's fields), store false; the answer has the gateway's id and usage; billed exactly", async () => {
    h.fake.queue(responsesAnswer([reasoning, customCall], USAGE, { tools: codexRequest.tools }));
    const res = await create({ ...codexRequest, store: false });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(res.headers.get("x-gateway-ignored")).toBeNull();

    const got = h.fake.requests.at(-1)!;
    expect(got.path).toBe("/v1/responses");
    expect(got.headers.authorization).toBe("Bearer sk-upstream-native-1");
    expect(got.body).toEqual({ ...codexRequest, model: "gpt-up", store: false, stream: false });

    expect(body.id).toBe(`resp_${res.headers.get("x-request-id")!.slice(4)}`);
    expect(body.model).toBe(MODEL);
    expect(body.output).toEqual([reasoning, customCall]);
    expect(body.usage).toEqual({
      input_tokens: 1000,
      input_tokens_details: { cached_tokens: 400 },
      output_tokens: 300,
      output_tokens_details: { reasoning_tokens: 120 },
      total_tokens: 1300,
    });
    expect(await ledger(res.headers.get("x-request-id"))).toEqual([
      { prompt_tokens: 1000, completion_tokens: 300, cost: COST, endpoint: "responses", usage_source: "provider" },
    ]);
  });

  test("a stream is relayed event by event; the response events carry the gateway's id; billed from response.completed", async () => {
    const reply = responsesStream([messageItem("Hello there")], USAGE);
    h.fake.queue(reply);
    const res = await create({ ...codexRequest, stream: true, store: false });
    expect(res.status).toBe(200);
    const text = await res.text();
    const frames = text.split("\n\n").filter((f) => f.includes("data: "));
    const upstream = (reply as { sse: Array<{ event: string; data: any }> }).sse;
    expect(frames.map((f) => f.slice(7, f.indexOf("\n")))).toEqual(upstream.map((e) => e.event));
    const events = frames.map((f) => JSON.parse(f.slice(f.indexOf("data: ") + 6)) as any);
    const id = `resp_${res.headers.get("x-request-id")!.slice(4)}`;
    expect(events[0].response.id).toBe(id);
    expect(events.at(-1).response).toMatchObject({ id, model: MODEL, usage: { input_tokens: 1000, output_tokens: 300 } });
    expect(events.find((e) => e.type === "response.output_text.delta")).toEqual(upstream.find((e) => e.event === "response.output_text.delta")!.data);
    expect(h.fake.requests.at(-1)!.body).toMatchObject({ stream: true, store: false });
    const row = async () => ledger(res.headers.get("x-request-id"));
    await expect.poll(row).toEqual([{ prompt_tokens: 1000, completion_tokens: 300, cost: COST, endpoint: "responses", usage_source: "provider" }]);
  });

  test("hosted tools' items replayed by the client (web_search_call, tool_search_call) are accepted and forwarded as sent", async () => {
    const search = { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "gateway" } };
    const found = { type: "tool_search_call", id: "ts_1", call_id: "call_ts_1", execution: "client", arguments: { query: "lint" }, status: "completed" };
    h.fake.queue(responsesAnswer([messageItem("ok")], USAGE));
    const input = [{ type: "message", role: "user", content: "find it" }, search, found, reasoning];
    const res = await create({ input, store: false });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(h.fake.requests.at(-1)!.body.input).toEqual(input);
  });

  test("usage beyond what the request's text could make (encrypted reasoning, hosted tools' results) is billed as reported, not capped", async () => {
    h.fake.queue(responsesAnswer([messageItem("searched")], { input_tokens: 60_000, output_tokens: 10 }));
    const res = await create({ input: "hi", tools: [{ type: "web_search" }], store: false });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).usage.input_tokens).toBe(60_000);
    expect(await ledger(res.headers.get("x-request-id"))).toEqual([
      { prompt_tokens: 60_000, completion_tokens: 10, cost: 60_000 * 1_000 + 10 * 2_000, endpoint: "responses", usage_source: "provider" },
    ]);
  });

  test("a stream cut before its terminal event ends with response.failed; what was delivered is billed as estimated", async () => {
    const full = responsesStream([messageItem("Hello there, this is cut")], USAGE) as { sse: Array<{ event: string; data: any }> };
    const upTo = full.sse.findIndex((e) => e.event === "response.output_text.delta");
    h.fake.queue({ sse: full.sse.slice(0, upTo + 1), cut: true, delayMs: 30 });
    const res = await create({ input: "hi", stream: true, store: false });
    const frames = (await res.text()).split("\n\n").filter((f) => f.includes("data: "));
    const last = JSON.parse(frames.at(-1)!.slice(frames.at(-1)!.indexOf("data: ") + 6)) as any;
    expect(last).toMatchObject({ type: "response.failed", sequence_number: upTo + 1, response: { status: "failed", error: { code: "server_error" } } });
    const rows = async () => ledger(res.headers.get("x-request-id"));
    // Settled once the gateway saw the cut, after the client got its last event: a few seconds on a loaded machine.
    await expect.poll(rows, { timeout: 10_000 }).toEqual([expect.objectContaining({ endpoint: "responses", usage_source: "estimated" })]);
  });

  test("previous_response_id: the gateway's store; the provider gets the whole conversation with store false and no previous_response_id", async () => {
    h.fake.queue(responsesAnswer([reasoning, messageItem("first")], USAGE));
    const first = (await (await create({ input: "one" })).json()) as any;
    expect(first.store).toBe(true);
    expect(h.fake.requests.at(-1)!.body).toMatchObject({ store: false });

    h.fake.queue(responsesAnswer([messageItem("second")], USAGE));
    const res = await create({ input: "two", previous_response_id: first.id });
    const second = (await res.json()) as any;
    expect(res.status, JSON.stringify(second)).toBe(200);
    expect(second.previous_response_id).toBe(first.id);
    const sent = h.fake.requests.at(-1)!.body;
    expect(sent).not.toHaveProperty("previous_response_id");
    expect(sent.store).toBe(false);
    expect(sent.input).toEqual([
      { type: "message", role: "user", content: "one" },
      reasoning,
      messageItem("first"),
      { type: "message", role: "user", content: "two" },
    ]);
    const stored = await fetch(`${h.gw.url}/v1/responses/${second.id}`, { headers: { authorization: `Bearer ${h.key}` } });
    expect(((await stored.json()) as any).output).toEqual([messageItem("second")]);
  });
});

describe("native to Azure OpenAI's Responses API", () => {
  const az = useGateway(
    (fakeUrl) => ({
      server: { compat: "openai" },
      providers: { azure: { baseUrl: `${fakeUrl}/openai`, apiKey: "azure-upstream-key-1" } },
      models: [{ id: "test/azure", pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "azure", model: "gpt5-prod" }] }],
    }),
    { account: "azure" },
  );

  test("the v1 API's /responses with the api-key header and the deployment as model; the gateway's id and usage", async () => {
    az.fake.queue(responsesAnswer([messageItem("hi from azure")], { input_tokens: 10, output_tokens: 3 }));
    const res = await fetch(`${az.gw.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${az.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "test/azure", input: "hi", tools: [{ type: "web_search" }] }),
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const got = az.fake.requests.at(-1)!;
    expect(got.path).toBe("/openai/v1/responses");
    expect(got.headers["api-key"]).toBe("azure-upstream-key-1");
    expect(got.headers.authorization).toBeUndefined();
    expect(got.body).toEqual({ model: "gpt5-prod", input: "hi", tools: [{ type: "web_search" }], store: false, stream: false });
    expect(body).toMatchObject({
      id: `resp_${res.headers.get("x-request-id")!.slice(4)}`,
      model: "test/azure",
      store: true,
      usage: { input_tokens: 10, output_tokens: 3, total_tokens: 13 },
    });
  });
});
