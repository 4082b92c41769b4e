/**
 * Reported usage is the provider's bill (docs/limits.md, "Reported usage is the provider's
 * bill"): counts far beyond what a request's bytes, its `max_tokens` or the catalog's limits
 * could hold are honest when a server tool, a file, URL context or a beta made them, and are
 * billed as reported, natively and translated, JSON and stream; `X-Gateway-Cost` and a
 * stream's final `usage.cost` are the ledger row's cost. Recorded real answers where they exist
 * (test/fixtures/providers/). The hold decides admission only: an honest report beyond it is
 * charged down to zero and the rest recorded as uncollected.
 */
import { describe, expect, test } from "vitest";
import { nanoToUsd } from "../src/core/money.js";
import { useGateway } from "./helpers/gateway.js";
import { jsonLedgerRow, ledgerRowOf } from "./helpers/ledger-row.js";
import { message, textBlock } from "./providers/anthropic.fixture.js";
import { assemble, recorded, recordedChunks, sseReply } from "./providers/recorded.js";

const CLAUDE = { prompt: 3000, completion: 15_000, cacheRead: 300, cacheWrite: 3750 }; // nano-USD per token
const GEMINI = { prompt: 300, completion: 2500 };
const SEARCH = 10_000_000; // Anthropic web search: $10 per 1,000 searches, in nano-USD per search

const h = useGateway((url) => ({
  providers: {
    anthropic: { baseUrl: url, apiKey: "sk-ant-reported-usage-1" },
    google: { baseUrl: url, apiKey: "g-reported-usage-2" },
  },
  models: [
    {
      id: "anthropic/claude-sonnet-4-5",
      pricing: { prompt: "3", completion: "15", cache_read: "0.3", cache_write: "3.75" },
      context_length: 200_000,
      max_output: 64_000,
      endpoints: [{ provider: "anthropic", model: "claude-sonnet-4-5-20250929" }],
    },
    {
      id: "google/gemini-2.5-flash",
      pricing: { prompt: "0.3", completion: "2.5" },
      context_length: 1_048_576,
      max_output: 65_536,
      endpoints: [{ provider: "google", model: "gemini-2.5-flash" }],
    },
  ],
}));

const hi = [{ role: "user", content: "What is new in tech today?" }];

const messages = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${h.gw.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": h.key, "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 4096, messages: hi, ...body }),
  });

const generate = (body: Record<string, unknown>, stream = false) =>
  fetch(`${h.gw.url}/v1beta/models/gemini-2.5-flash:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`, {
    method: "POST",
    headers: { "x-goog-api-key": h.key, "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "Summarize https://example.com/report" }] }], ...body }),
  });

const rowOf = (res: Response) => ledgerRowOf(h.gw.db, res);
const jsonRow = (res: Response) => jsonLedgerRow(h.gw.db, res);

type ClaudeUsage = { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
type ServerTools = { server_tool_use?: { web_search_requests?: number } };

/** Anthropic's buckets at the model's prices, the searches at Anthropic's list price. */
const claudeCost = (u: ClaudeUsage & ServerTools) =>
  u.input_tokens * CLAUDE.prompt +
  (u.cache_read_input_tokens ?? 0) * CLAUDE.cacheRead +
  (u.cache_creation_input_tokens ?? 0) * CLAUDE.cacheWrite +
  u.output_tokens * CLAUDE.completion +
  (u.server_tool_use?.web_search_requests ?? 0) * SEARCH;

const promptOf = (u: ClaudeUsage) => u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);

/** The usage a recorded Anthropic stream ends with (message_delta's totals over message_start's). */
function streamUsage(file: string): ClaudeUsage & ServerTools {
  const events = recordedChunks(file);
  return { ...events.find((e) => e.type === "message_start").message.usage, ...events.findLast((e) => e.type === "message_delta").usage };
}

describe("Anthropic: server tools, files and betas report what the request's bytes cannot hold", () => {
  const WEB_SEARCH_JSON = "anthropic/anthropic-web-search-tool.1.json";
  const WEB_SEARCH_STREAM = "anthropic/anthropic-web-search-tool.1.chunks.txt";
  const CODE_EXECUTION = "anthropic/anthropic-code-execution-20260120-prompt-cache.1.chunks.txt";

  test("web search (recorded), native /v1/messages: 27,118 prompt tokens and 2 searches billed as reported", async () => {
    const rec = recorded(WEB_SEARCH_JSON);
    h.fake.queue({ json: rec });
    const res = await messages({ tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 5 }] });
    const body = (await res.clone().json()) as { usage: ClaudeUsage };
    expect(body.usage).toMatchObject({ input_tokens: rec.usage.input_tokens, output_tokens: rec.usage.output_tokens });
    const row = await jsonRow(res);
    expect(row).toMatchObject({ prompt_tokens: 27_118, completion_tokens: 600, cost: claudeCost(rec.usage), usage_source: "provider" });
    expect(row).toMatchObject({ tool_cost: 2 * SEARCH, reported_prompt_tokens: null, reported_completion_tokens: null });
    expect(JSON.parse(row.tool_calls)).toEqual({ web_search: 2 });
  });

  test("web search (recorded) on chat translated to Anthropic, JSON: the same bill, X-Gateway-Cost the row's", async () => {
    const rec = recorded(WEB_SEARCH_JSON);
    h.fake.queue({ json: rec });
    const res = await h.post({ model: "anthropic/claude-sonnet-4-5", messages: hi });
    const row = await jsonRow(res);
    expect(((await res.json()) as { usage: unknown }).usage).toMatchObject({ prompt_tokens: 27_118, completion_tokens: 600 });
    expect(row).toMatchObject({ prompt_tokens: 27_118, completion_tokens: 600, cost: claudeCost(rec.usage), tool_cost: 2 * SEARCH });
  });

  test("web search stream (recorded), native: 15,665 prompt tokens and 1 search billed as reported", async () => {
    const u = streamUsage(WEB_SEARCH_STREAM);
    h.fake.queue(sseReply(WEB_SEARCH_STREAM, "named"));
    const res = await messages({ stream: true });
    const text = await res.text();
    expect(text).toContain("event: message_stop");
    const row = await rowOf(res);
    expect(row).toMatchObject({ prompt_tokens: promptOf(u), completion_tokens: u.output_tokens, cost: claudeCost(u), tool_cost: SEARCH });
    expect(promptOf(u)).toBe(15_665);
  });

  test("web search stream (recorded) on chat translated to Anthropic: the final usage.cost is the row's cost", async () => {
    const u = streamUsage(WEB_SEARCH_STREAM);
    h.fake.queue(sseReply(WEB_SEARCH_STREAM, "named"));
    const res = await h.post({
      model: "anthropic/claude-sonnet-4-5",
      messages: hi,
      stream: true,
      stream_options: { include_usage: true },
      usage: { include: true },
    });
    const out = await assemble(res);
    const row = await rowOf(res);
    expect(out.usage).toMatchObject({ prompt_tokens: 15_665, completion_tokens: u.output_tokens, cost: nanoToUsd(row.cost) });
    expect(row.cost).toBe(claudeCost(u));
  });

  test("the recorded code-execution stream (9,632 prompt tokens, mostly cache) is billed $0.01738845, natively and translated", async () => {
    const u = streamUsage(CODE_EXECUTION);
    expect(promptOf(u)).toBe(9632);
    expect(claudeCost(u)).toBe(17_388_450);
    h.fake.queue(sseReply(CODE_EXECUTION, "named"), sseReply(CODE_EXECUTION, "named"));
    const native = await messages({ stream: true });
    await native.text();
    const translated = await h.post({ model: "anthropic/claude-sonnet-4-5", messages: hi, stream: true, usage: { include: true } });
    const out = await assemble(translated);
    expect(await rowOf(native)).toMatchObject({ prompt_tokens: 9632, completion_tokens: 198, cost: 17_388_450 });
    expect(out.usage.cost).toBe("0.01738845");
    expect(await rowOf(translated)).toMatchObject({ prompt_tokens: 9632, cost: 17_388_450 });
  });

  test("a Files API document reporting 90,000 prompt tokens for a request of a few hundred bytes is billed 90,000", async () => {
    h.fake.queue(message([textBlock("The report says...")], { input_tokens: 90_000, output_tokens: 350 }));
    const document = { type: "document", source: { type: "file", file_id: "file_011CNha8iCJcU1wXNR6q4V8w" } };
    const res = await messages(
      { messages: [{ role: "user", content: [document, { type: "text", text: "Summarize." }] }] },
      { "anthropic-beta": "files-api-2025-04-14" },
    );
    expect(await jsonRow(res)).toMatchObject({ prompt_tokens: 90_000, completion_tokens: 350, cost: 90_000 * CLAUDE.prompt + 350 * CLAUDE.completion });
  });

  test("the 128k-output beta: 100,000 completion tokens past the catalog's 64,000 are billed as reported", async () => {
    h.fake.queue(message([textBlock("A very long answer.")], { input_tokens: 40, output_tokens: 100_000 }));
    const res = await messages({ max_tokens: 128_000 }, { "anthropic-beta": "output-128k-2025-02-19" });
    const row = await jsonRow(res);
    expect(row).toMatchObject({ prompt_tokens: 40, completion_tokens: 100_000, reported_completion_tokens: null });
    expect(h.fake.requests.at(-1)!.headers["anthropic-beta"]).toBe("output-128k-2025-02-19");
  });

  test("the 1M-context beta: 600,000 prompt tokens past the catalog's 200,000 window are billed as reported, unmarked", async () => {
    h.fake.queue(message([textBlock("Read it all.")], { input_tokens: 600_000, output_tokens: 20 }));
    const res = await messages({}, { "anthropic-beta": "context-1m-2025-08-07" });
    expect(await jsonRow(res)).toMatchObject({
      prompt_tokens: 600_000,
      completion_tokens: 20,
      reported_prompt_tokens: null,
      cost: 600_000 * CLAUDE.prompt + 20 * CLAUDE.completion,
    });
  });

  test("an honest report beyond the hold is charged down to zero, the rest uncollected; X-Gateway-Cost is what was charged", async () => {
    const key = await h.gw.createKey({ account: "thin" });
    await h.gw.addCredits("0.05", "thin");
    h.fake.queue(message([textBlock("Searched.")], { input_tokens: 60_000, output_tokens: 400, server_tool_use: { web_search_requests: 3 } } as never));
    const res = await fetch(`${h.gw.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 1000, messages: hi }),
    });
    const row = await jsonRow(res);
    const full = 60_000 * CLAUDE.prompt + 400 * CLAUDE.completion + 3 * SEARCH; // $0.216
    expect(row).toMatchObject({ list_cost: full, cost: 50_000_000, uncollected: full - 50_000_000, prompt_tokens: 60_000 });
    expect(await h.gw.store.balance("thin")).toBe(0n);
  });
});

/** A GenerateContentResponse as Google sends it (https://ai.google.dev/api/generate-content), with grounding when given. */
function geminiAnswer(text: string, usage: { promptTokenCount: number; candidatesTokenCount: number; toolUsePromptTokenCount?: number }, queries?: string[]) {
  return {
    candidates: [
      {
        content: { parts: [{ text }], role: "model" },
        finishReason: "STOP",
        index: 0,
        ...(queries && { groundingMetadata: { webSearchQueries: queries, groundingChunks: [{ web: { uri: "https://example.com", title: "example.com" } }] } }),
      },
    ],
    usageMetadata: { ...usage, totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount + (usage.toolUsePromptTokenCount ?? 0) },
    modelVersion: "gemini-2.5-flash",
    responseId: "resp-reported-usage",
  };
}

describe("Gemini: URL context and Google Search report what the request's bytes cannot hold", () => {
  const GROUNDED_PROMPT = 35_000_000; // Gemini 2.5: $35 per 1,000 grounded prompts

  test("urlContext, /v1beta native: 40,150 prompt tokens billed as reported", async () => {
    h.fake.queue({ json: geminiAnswer("The report says...", { promptTokenCount: 40_150, candidatesTokenCount: 120 }) });
    const res = await generate({ tools: [{ urlContext: {} }] });
    expect(await jsonRow(res)).toMatchObject({ prompt_tokens: 40_150, completion_tokens: 120, cost: 40_150 * GEMINI.prompt + 120 * GEMINI.completion });
  });

  test("googleSearch, /v1beta native stream: 12,050 prompt tokens and the grounded prompt billed as reported", async () => {
    const usage = { promptTokenCount: 50, toolUsePromptTokenCount: 12_000, candidatesTokenCount: 30 };
    const first = geminiAnswer("Today ", { promptTokenCount: 50, candidatesTokenCount: 2 });
    delete (first.candidates[0] as { finishReason?: string }).finishReason;
    h.fake.queue({ sse: [{ data: first }, { data: geminiAnswer("it rained.", usage, ["weather today"]) }] });
    const res = await generate({ tools: [{ googleSearch: {} }] }, true);
    expect(await res.text()).toContain("it rained.");
    const row = await rowOf(res);
    expect(row).toMatchObject({ prompt_tokens: 12_050, completion_tokens: 30, tool_cost: GROUNDED_PROMPT });
    expect(row.cost).toBe(12_050 * GEMINI.prompt + 30 * GEMINI.completion + GROUNDED_PROMPT);
    expect(JSON.parse(row.tool_calls)).toEqual({ google_search: 1, google_search_prompt: 1 });
  });

  test("googleSearch on chat translated to Google, JSON and stream: X-Gateway-Cost and the final usage.cost are the row's", async () => {
    const usage = { promptTokenCount: 50, toolUsePromptTokenCount: 12_000, candidatesTokenCount: 30 };
    h.fake.queue(
      { json: geminiAnswer("It rained.", usage, ["weather today", "rain today"]) },
      { sse: [{ data: geminiAnswer("It rained.", usage, ["weather today"]) }] },
    );
    const answer = await h.post({ model: "google/gemini-2.5-flash", messages: hi });
    const res = await h.post({ model: "google/gemini-2.5-flash", messages: hi, stream: true, usage: { include: true } });
    const out = await assemble(res);
    const json = await jsonRow(answer);
    expect(json).toMatchObject({ prompt_tokens: 12_050, cost: 12_050 * GEMINI.prompt + 30 * GEMINI.completion + GROUNDED_PROMPT });
    expect(JSON.parse(json.tool_calls)).toEqual({ google_search: 2, google_search_prompt: 1 });
    const row = await rowOf(res);
    expect(out.usage).toMatchObject({ prompt_tokens: 12_050, cost: nanoToUsd(row.cost) });
    expect(row.cost).toBe(json.cost);
  });
});
