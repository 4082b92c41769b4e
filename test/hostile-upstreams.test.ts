/**
 * Issue "Hold under hostile upstreams", the upstream half (docs/limits.md): answers over a
 * cap, usage that is not a count, a stream that runs too long, one tenant's requests that
 * make a provider fail, and a Retry-After longer than the retry budget. After each, the
 * gateway answers in the error shape and credited == balance + charged, to the nano-USD.
 */
import { rows } from "./helpers/rows.js";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Reply } from "./helpers/fake-upstream.js";
import { FAST_RETRY, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, expectError, post } from "./helpers/http.js";
import { completion, error, stream } from "./helpers/openai-wire.js";
import { nanoToUsd } from "../src/core/money.js";

const MODEL = "acme/chat";
const CREDITED = 10_000_000_000n; // $10 in nano-USD
const MiB = 1024 * 1024;

function config(fakeUrl: string, extra: Record<string, unknown> = {}) {
  return {
    server: { upstream: { maxEventBytes: 64 * 1024, maxResponseBytes: MiB }, timeouts: { stream: 1500 } },
    providers: { acme: { plugin: "openai", baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-hostile" } },
    models: [{ id: MODEL, pricing: { prompt: "1", completion: "2" }, context_length: 1000, max_output: 100, endpoints: [{ provider: "acme", model: "m" }] }],
    retry: FAST_RETRY,
    ...extra,
  };
}

let fake: FakeUpstream;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  gw = await startGateway(config(fake.url));
  key = await gw.createKey();
  await gw.addCredits("10");
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => void (fake.requests.length = 0));

/** Each request a conversation of its own, so the router's order decides (prompt-cache affinity: test/affinity.test.ts). */
let asked = 0;
const ask = (body: Record<string, unknown> = {}, k = key) =>
  post(gw.url, "/v1/chat/completions", { model: MODEL, messages: [{ role: "user", content: `hi ${++asked}` }], ...body }, bearer(k));

interface Row {
  status: string;
  usage_source: string;
  cost: number;
  list_cost: number;
  prompt_tokens: number;
  completion_tokens: number;
  http_status: number;
}

function ledger(): Promise<Row[]> {
  return rows<Row>(gw.db, "SELECT * FROM ledger ORDER BY id");
}

let seen = 0;
beforeEach(async () => void (seen = (await ledger()).length));

/** This test's ledger row, read from the database file itself; a stream's is written just after it ends. */
async function lastRow(): Promise<Row> {
  for (let i = 0; i < 100 && (await ledger()).length <= seen; i++) await new Promise((r) => setTimeout(r, 20));
  const all = await ledger();
  expect(all.length).toBe(seen + 1);
  return all.at(-1)!;
}

async function expectMoneyAddsUp(): Promise<void> {
  const charged = (await gw.store.usage({})).reduce((sum, r) => sum + r.cost, 0n);
  expect(((await gw.store.balance("default")) ?? 0n) + charged).toBe(CREDITED);
}

/** SSE bytes with no newline at all: one event that never ends. */
const X64K = Buffer.alloc(64 * 1024, 120); // one buffer sent many times: the fake itself stays small
const A1M = Buffer.alloc(MiB, 97);
const endless = (chunks: number): Reply => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  raw: "",
  chunks: [Buffer.from("data: "), ...new Array<Buffer>(chunks).fill(X64K)],
});

async function sse(res: Response): Promise<string[]> {
  return (await res.text())
    .split("\n\n")
    .filter(Boolean)
    .map((e) => e.replace(/^data: /, ""));
}

describe("1. answers over a cap", () => {
  test("an endless SSE line before any output: 502 in the error shape, memory bounded, health counts it, nothing charged", async () => {
    const before = process.memoryUsage().rss;
    fake.queue(endless(1600)); // 100 MiB offered; the gateway stops reading past 64 KiB
    const e = await expectError(await ask({ stream: true }), 502, "upstream_error", "upstream_invalid_response");
    expect(e.message).not.toMatch(/64|bytes|acme/);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MiB);
    expect(await lastRow()).toMatchObject({ status: "error", cost: 0, http_status: 502 });
    const health = (await (await fetch(`${gw.url}/v1/health/providers`)).json()) as { providers: Array<{ id: string; success_rate: number }> };
    expect(health.providers.find((p) => p.id === "acme")!.success_rate).toBeLessThan(1);
    await expectMoneyAddsUp();
  });

  test("a 100 MB JSON answer: 502, the gateway reads at most the 1 MiB cap", async () => {
    const before = process.memoryUsage().rss;
    fake.queue({
      status: 200,
      headers: { "content-type": "application/json" },
      raw: "",
      chunks: [Buffer.from('{"choices":["'), ...new Array<Buffer>(100).fill(A1M)],
    });
    await expectError(await ask(), 502, "upstream_error", "upstream_invalid_response");
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MiB);
    await expectMoneyAddsUp();
  });

  test("an endless line after the stream started: the in-stream error event, no [DONE], and what was delivered is billed", async () => {
    const started = stream(["Hello", " there"], undefined, { cut: true }) as { sse: Array<{ data: unknown }> };
    const head = started.sse.map((e) => `data: ${JSON.stringify(e.data)}\n\n`).join("");
    fake.queue({
      status: 200,
      headers: { "content-type": "text/event-stream" },
      raw: "",
      chunks: [Buffer.from(head), Buffer.from("data: "), ...new Array<Buffer>(64).fill(X64K)],
    });
    const events = await sse(await ask({ stream: true }));
    expect(events.at(-1)).toMatch(/"code":"stream_interrupted"/);
    expect(events).not.toContain("[DONE]");
    expect(events.join("")).toContain("Hello");
    const row = await lastRow();
    expect(row).toMatchObject({ status: "error", usage_source: "estimated" });
    expect(row.completion_tokens).toBeGreaterThan(0);
    expect(row.cost).toBeGreaterThan(0);
    await expectMoneyAddsUp();
  });

  test("a stream past server.timeouts.stream ends with the error event and is billed for what it delivered", async () => {
    fake.queue(
      stream(
        Array.from({ length: 40 }, (_, i) => `w${i} `),
        undefined,
        { delayMs: 100 },
      ),
    );
    const t = Date.now();
    const events = await sse(await ask({ stream: true }));
    expect(Date.now() - t).toBeLessThan(3500);
    expect(events.at(-1)).toMatch(/stream_interrupted/);
    const row = await lastRow();
    expect(row).toMatchObject({ status: "error", usage_source: "estimated" });
    expect(row.cost).toBeGreaterThan(0);
    await expectMoneyAddsUp();
  });
});

describe("2. usage that is not a count", () => {
  test.each([
    ["fractional", 12.5],
    ["negative", -5],
    ["a string", "12"],
    ["null", null],
  ])("%s prompt_tokens: 502 upstream_invalid_response, nothing charged, no hold stranded", async (_name, count) => {
    const reply = completion("ok") as { json: { usage: Record<string, unknown> } };
    reply.json.usage.prompt_tokens = count;
    fake.queue(reply);
    await expectError(await ask(), 502, "upstream_error", "upstream_invalid_response");
    expect(await lastRow()).toMatchObject({ status: "error", cost: 0 });
    await expectMoneyAddsUp();
    // The hold was released: a request whose worst case is nearly the whole balance is admitted.
    fake.queue(completion("ok", { prompt_tokens: 1, completion_tokens: 1 }));
    expect((await ask()).status).toBe(200);
  });

  test("an absurd count (1e15) is cut to the sanity ceiling (4x the largest window, not the model's limits); the row keeps what was reported", async () => {
    fake.queue(completion("ok", { prompt_tokens: 1e15, completion_tokens: 7 }));
    const res = await ask();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    // Billed: 4 x 2,000,000 prompt tokens (docs/limits.md, "Reported usage is the provider's bill"), far above this
    // model's 1,000-token window, which an honest report may pass (a beta, a server tool's results).
    expect(body.usage).toMatchObject({ prompt_tokens: 8_000_000, completion_tokens: 7 });
    const row = (await lastRow()) as Row & { reported_prompt_tokens: number | null; reported_completion_tokens: number | null };
    expect(row).toMatchObject({ prompt_tokens: 8_000_000, completion_tokens: 7, reported_prompt_tokens: 1e15, reported_completion_tokens: 7 });
    expect(row.list_cost).toBe(8_000_000 * 1000 + 7 * 2000);
    expect(res.headers.get("x-gateway-cost")).toBe(nanoToUsd(row.cost));
    await expectMoneyAddsUp();
  });

  test("negative usage in a stream's last chunk: the error event; the text delivered is billed on an estimate; no negative count reaches the client", async () => {
    fake.queue(stream(["four", " words", " are", " here"], { prompt_tokens: -5, completion_tokens: 4 }));
    const events = await sse(await ask({ stream: true }));
    expect(events.at(-1)).toMatch(/stream_interrupted/);
    expect(events.join("")).not.toMatch(/":-\d/); // no negative number anywhere (ids hold "-5" by chance)
    expect(await lastRow()).toMatchObject({ status: "error", usage_source: "estimated" });
    expect((await lastRow()).prompt_tokens).toBeGreaterThan(0);
    await expectMoneyAddsUp();
  });
});

describe("3. an answer that is complete but whose response never ends", () => {
  test("[DONE] then nothing: the client's stream completes at once with [DONE], billed on the provider's usage", async () => {
    fake.queue({ ...(stream(["all ", "of it"], { prompt_tokens: 7, completion_tokens: 3 }) as Extract<Reply, { sse: unknown }>), holdOpen: true });
    const t = Date.now();
    const events = await sse(await ask({ stream: true }));
    expect(Date.now() - t).toBeLessThan(1500); // server.timeouts.stream here: it did not end the stream
    expect(events.at(-1)).toBe("[DONE]");
    expect(events.join("")).not.toContain('"error"');
    expect(await lastRow()).toMatchObject({ status: "ok", usage_source: "provider", completion_tokens: 3 });
    await expectMoneyAddsUp();
  });
});

describe("4. one tenant cannot open a circuit for everyone", () => {
  let primary: FakeUpstream;
  let secondary: FakeUpstream;
  let g: TestGateway;
  beforeAll(async () => {
    // The primary answers 500 to one kind of content only, the way a provider bug does.
    primary = await startFakeUpstream((req) => (req.raw.includes("poison") ? error(500, "boom") : completion("from primary")));
    secondary = await startFakeUpstream(() => completion("from secondary"));
    g = await startGateway({
      providers: {
        primary: { plugin: "openai", baseUrl: `${primary.url}/v1`, apiKey: "sk-p" },
        secondary: { plugin: "openai", baseUrl: `${secondary.url}/v1`, apiKey: "sk-s" },
      },
      models: [
        {
          id: MODEL,
          pricing: { prompt: "1", completion: "2" },
          order: "fixed",
          endpoints: [
            { provider: "primary", model: "m" },
            { provider: "secondary", model: "m" },
          ],
        },
      ],
      retry: FAST_RETRY,
      health: { failureThreshold: 2, cooldown: 60_000 },
    });
    await g.addCredits("10");
  });
  afterAll(async () => {
    await g?.close();
    await primary?.close();
    await secondary?.close();
  });

  const send = (k: string, content: string) =>
    post(g.url, "/v1/chat/completions", { model: MODEL, messages: [{ role: "user", content: `${content} ${++asked}` }] }, bearer(k));

  test("ten failing requests from one key leave the circuit closed; another key still reaches the primary; two keys do open it", async () => {
    const mallory = await g.createKey();
    const alice = await g.createKey();
    for (let i = 0; i < 10; i++) expect((await send(mallory, "poison")).status).toBe(200); // each fails over
    primary.requests.length = 0;
    const res = await send(alice, "hello");
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("from primary");
    // Failures from two keys in one streak are widespread: the circuit opens.
    await send(mallory, "poison");
    await send(alice, "poison");
    primary.requests.length = 0;
    await send(alice, "hello");
    expect(primary.requests).toHaveLength(0);
  });
});

describe("5. the retry budget", () => {
  test("Retry-After 120 s with the default 10 s budget: the answer comes at once, not after two minutes", async () => {
    const slow = await startFakeUpstream(() => error(429, "slow down", { "retry-after": "120" }));
    const g = await startGateway({
      providers: { acme: { plugin: "openai", baseUrl: `${slow.url}/v1`, apiKey: "sk-x" } },
      models: [{ id: MODEL, pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider: "acme", model: "m" }] }],
    });
    try {
      const k = await g.createKey();
      await g.addCredits("1");
      const t = Date.now();
      const res = await post(g.url, "/v1/chat/completions", { model: MODEL, messages: [{ role: "user", content: "hi" }] }, bearer(k));
      await expectError(res, 503, "upstream_error", "upstream_unavailable");
      expect(Date.now() - t).toBeLessThan(1000);
      expect(g.server.gateway.config.retry.maxElapsedTime).toBe(10_000);
    } finally {
      await g.close();
      await slow.close();
    }
  });
});
