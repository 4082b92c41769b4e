/**
 * Per-call tool fees (docs/billing.md, "Per-call tool fees"): the calls a provider reports
 * (OpenAI's web_search_call and file_search_call items, Anthropic's server_tool_use) are billed
 * at the endpoint's `pricing.tool_calls`, else the model's, else the provider's list price, and
 * shown on the ledger row (`tool_calls`, `tool_cost`) and by `gateway usage`; a tool with no
 * price is billed 0 and said once; a count above the sanity ceiling is cut to it, the reported
 * count kept on the row and named in the request's log line.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { nanoToUsd } from "../src/core/money.js";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";
import { useGateway } from "./helpers/gateway.js";
import { messageItem, responsesStream } from "./helpers/responses-wire.js";
import { jsonLedgerRow, ledgerRowOf } from "./helpers/ledger-row.js";
import { rows } from "./helpers/rows.js";
import { message, messageEnd, messageStart, textBlock, textBlockEvents } from "./providers/anthropic.fixture.js";
import { recorded } from "./providers/recorded.js";

const GPT = { prompt: 250, completion: 2000, cacheRead: 25 }; // nano-USD per token
const CLAUDE = { prompt: 3000, completion: 15_000 };
const PER_1000 = 1_000_000; // USD per 1,000 calls -> nano-USD per call

const h = useGateway((url) => ({
  providers: {
    openai: { baseUrl: `${url}/v1`, apiKey: "sk-tool-fees-openai-1" },
    anthropic: { baseUrl: url, apiKey: "sk-ant-tool-fees-2" },
  },
  models: [
    { id: "openai/gpt-5-mini", pricing: { prompt: "0.25", completion: "2", cache_read: "0.025" }, endpoints: [{ provider: "openai", model: "gpt-5-mini" }] },
    {
      id: "acme/gpt-priced",
      pricing: { prompt: "0.25", completion: "2", cache_read: "0.025", tool_calls: { web_search: "12.5" } },
      endpoints: [{ provider: "openai", model: "gpt-5-mini" }],
    },
    {
      id: "anthropic/claude",
      pricing: { prompt: "3", completion: "15" },
      context_length: 200_000,
      max_output: 64_000,
      endpoints: [{ provider: "anthropic", model: "claude-up" }],
    },
    {
      id: "acme/claude-resold",
      pricing: { prompt: "3", completion: "15" },
      endpoints: [{ provider: "anthropic", model: "claude-up", pricing: { prompt: "3", completion: "15", tool_calls: { web_search: "8" } } }],
    },
  ],
}));

beforeAll(() => assertBuilt());
const said = vi.spyOn(console, "error");
afterAll(() => said.mockRestore());

const responses = (model: string, body: Record<string, unknown> = {}) =>
  fetch(`${h.gw.url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, input: "What happened today?", tools: [{ type: "web_search" }], store: false, ...body }),
  });

const messages = (model: string) =>
  fetch(`${h.gw.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": h.key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model, max_tokens: 1000, messages: [{ role: "user", content: "Search the news." }] }),
  });

const rowOf = (res: Response) => ledgerRowOf(h.gw.db, res);
const jsonRow = (res: Response) => jsonLedgerRow(h.gw.db, res);

/** A Responses usage at gpt-5-mini's prices. */
type ResponsesUsage = { input_tokens: number; input_tokens_details: { cached_tokens: number }; output_tokens: number };
const gptTokens = (u: ResponsesUsage) =>
  (u.input_tokens - u.input_tokens_details.cached_tokens) * GPT.prompt +
  u.input_tokens_details.cached_tokens * GPT.cacheRead +
  u.output_tokens * GPT.completion;

const callsIn = (output: Array<{ type: string }>, type: string) => output.filter((o) => o.type === type).length;

test("OpenAI web search (recorded Responses answer): each web_search_call item is a call at $10 per 1,000", async () => {
  const rec = recorded("openai/openai-web-search-tool.1.json");
  const calls = callsIn(rec.output, "web_search_call");
  expect(calls).toBe(3);
  h.fake.queue({ json: rec });
  const row = await jsonRow(await responses("openai/gpt-5-mini"));
  expect(row).toMatchObject({ prompt_tokens: rec.usage.input_tokens, tool_cost: calls * 10 * PER_1000, cost: gptTokens(rec.usage) + calls * 10 * PER_1000 });
  expect(JSON.parse(row.tool_calls)).toEqual({ web_search: 3 });
});

test("OpenAI file search (recorded) at $2.50 per 1,000; a model's pricing.tool_calls wins over the list price; streamed too", async () => {
  const files = recorded("openai/openai-file-search-tool.1.json");
  const searched = recorded("openai/openai-web-search-tool.1.json");
  const item = searched.output.find((o: { type: string }) => o.type === "web_search_call");
  h.fake.queue({ json: files }, { json: searched }, responsesStream([item, item, messageItem("It rained.")], { input_tokens: 9000, output_tokens: 50 }));
  const fileRes = await responses("openai/gpt-5-mini", { tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] });
  const pricedRes = await responses("acme/gpt-priced");
  const streamed = await responses("acme/gpt-priced", { stream: true });
  expect(await streamed.text()).toContain("response.completed");

  const fileRow = await jsonRow(fileRes);
  expect(fileRow).toMatchObject({ tool_cost: 2.5 * PER_1000, cost: gptTokens(files.usage) + 2.5 * PER_1000 });
  expect(JSON.parse(fileRow.tool_calls)).toEqual({ file_search: 1 });
  expect(await jsonRow(pricedRes)).toMatchObject({ tool_cost: 3 * 12.5 * PER_1000, cost: gptTokens(searched.usage) + 3 * 12.5 * PER_1000 });
  expect(await rowOf(streamed)).toMatchObject({
    prompt_tokens: 9000,
    tool_cost: 2 * 12.5 * PER_1000,
    cost: 9000 * GPT.prompt + 50 * GPT.completion + 2 * 12.5 * PER_1000,
  });
});

test("Anthropic: the list price; an endpoint's pricing.tool_calls wins; a tool with no price is billed 0 and said once", async () => {
  said.mockClear();
  const searched = { input_tokens: 5000, output_tokens: 100, server_tool_use: { web_search_requests: 4, web_fetch_requests: 2 } };
  const ran = { input_tokens: 100, output_tokens: 10, server_tool_use: { code_execution_requests: 2 } };
  h.fake.queue(...[searched, searched, ran, ran].map((u) => message([textBlock("Done.")], u as never)));
  const listed = await jsonRow(await messages("anthropic/claude"));
  const resold = await jsonRow(await messages("acme/claude-resold"));
  const unpriced = [await jsonRow(await messages("anthropic/claude")), await jsonRow(await messages("anthropic/claude"))];

  const tokens = 5000 * CLAUDE.prompt + 100 * CLAUDE.completion;
  expect(listed).toMatchObject({ tool_cost: 4 * 10 * PER_1000, cost: tokens + 4 * 10 * PER_1000 }); // web fetch: no fee
  expect(JSON.parse(listed.tool_calls)).toEqual({ web_search: 4, web_fetch: 2 });
  expect(resold).toMatchObject({ tool_cost: 4 * 8 * PER_1000, cost: tokens + 4 * 8 * PER_1000 });
  for (const row of unpriced) expect(row).toMatchObject({ tool_cost: 0, cost: 100 * CLAUDE.prompt + 10 * CLAUDE.completion });
  expect(JSON.parse(unpriced[0]!.tool_calls)).toEqual({ code_execution: 2 });
  const lines = said.mock.calls.map((c) => String(c[0])).filter((l) => l.includes("code_execution"));
  expect(lines).toEqual([
    "[gateway] model 'anthropic/claude' reported code_execution calls, which have no price: billed 0 (set pricing.tool_calls.code_execution, docs/billing.md)",
  ]);
});

test("a call count that is not a count: a JSON answer is a 502 charging nothing; a native stream ends with the error event, its text billed on an estimate", async () => {
  const bad = { input_tokens: 100, output_tokens: 10, server_tool_use: { web_search_requests: "many" } } as never;
  h.fake.queue(message([textBlock("Searched.")], bad), {
    sse: [messageStart({ input_tokens: 100 }), ...textBlockEvents(0, ["Here is ", "what I found."]), ...messageEnd("end_turn", bad)],
  });
  const json = await messages("anthropic/claude");
  const res = await fetch(`${h.gw.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": h.key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "anthropic/claude", max_tokens: 1000, stream: true, messages: [{ role: "user", content: "Search the news." }] }),
  });
  expect(json.status).toBe(502);
  expect(((await json.json()) as { error: { code: string } }).error.code).toBe("upstream_invalid_response");
  expect(await res.text()).toMatch(/event: error\n[^\n]*stream_interrupted/);
  expect(await rowOf(json)).toMatchObject({ status: "error", cost: 0 });
  const row = await rowOf(res);
  expect(row).toMatchObject({ status: "error", usage_source: "estimated", tool_calls: null });
  expect(row.completion_tokens).toBeGreaterThan(0);
});

test("a count of calls above the sanity ceiling is billed 10,000; the row and the log line keep what was reported; gateway usage shows fees and bounds", async () => {
  h.fake.queue(message([textBlock("Searched a lot.")], { input_tokens: 100, output_tokens: 10, server_tool_use: { web_search_requests: 1e9 } } as never));
  const res = await messages("anthropic/claude");
  const row = await jsonRow(res);
  expect(row).toMatchObject({ tool_cost: 10_000 * 10 * PER_1000, reported_prompt_tokens: 100, reported_completion_tokens: 10 });
  expect(JSON.parse(row.tool_calls)).toEqual({ web_search: 10_000 });
  expect(JSON.parse(row.reported_tool_calls)).toEqual({ web_search: 1e9 });

  const all = await rows<{ tool_cost: number; bounded: number }>(
    h.gw.db,
    "SELECT SUM(tool_cost) AS tool_cost, SUM(CASE WHEN reported_prompt_tokens IS NULL THEN 0 ELSE 1 END) AS bounded FROM ledger",
  );
  const usage = await gateway(["--db", h.gw.db, "usage", "--json"], { cwd: tempDir() });
  expect(usage.exitCode, usage.stderr).toBe(0);
  expect(usage.json).toMatchObject({ tool_cost: nanoToUsd(all[0]!.tool_cost), bounded: 1 });
  expect(usage.json.by_model).toContainEqual(expect.objectContaining({ model: "acme/claude-resold", tool_cost: "0.032", bounded: 0 }));
  const text = await gateway(["--db", h.gw.db, "usage"], { cwd: tempDir() });
  expect(text.stdout).toContain(`$${nanoToUsd(all[0]!.tool_cost)} of it per-call tool fees`);
  expect(text.stdout).toContain("1 billed at a bound: their ledger rows keep the counts reported");

  await h.gw.close(); // the log is complete once the gateway stopped
  const line = readFileSync(h.gw.logFile!, "utf8")
    .split("\n")
    .find((l) => l.includes(`"req_id":"${res.headers.get("x-request-id")}"`));
  expect(JSON.parse(line!)).toMatchObject({
    prompt_tokens: 100,
    reported_usage: { prompt_tokens: 100, completion_tokens: 10, tool_calls: { web_search: 1e9 } },
  });
});
