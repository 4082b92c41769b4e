/**
 * The endpoint contract (docs/architecture.md "The request pipeline"): one set of cases run
 * over all five model endpoints (chat completions, Responses, /v1/messages, Gemini,
 * embeddings), JSON and streamed, native and translated (variants.ts), as the Store's
 * contract runs over both stores. Whatever an endpoint's wire format, the pipeline gives it
 * the same guarantees: auth, limits, the 402, the hold released on every failure, failover
 * before the first byte, a cut stream billed for what was delivered, its ledger row, its log
 * line and its /metrics series. Real gateway, real HTTP, fake upstreams in each wire format.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Recorded } from "../helpers/fake-upstream.js";
import { FAST_RETRY, startGateway, type TestGateway } from "../helpers/gateway.js";
import { ledgerRowOf, type LedgerRow } from "../helpers/ledger-row.js";
import { error } from "../helpers/openai-wire.js";
import { sampleOf, scrape } from "../helpers/prometheus.js";
import { embeddingsFallback, MODEL, VARIANTS, type Variant } from "./variants.js";

function configOf(v: Variant, primary: string, secondary: string): Record<string, unknown> {
  return {
    providers: {
      primary: { plugin: v.plugin, baseUrl: v.baseUrl(primary), apiKey: "sk-contract-primary-upstream-1111" },
      secondary: { plugin: v.plugin, baseUrl: v.baseUrl(secondary), apiKey: "sk-contract-secondary-upstream-2222" },
    },
    models: [
      {
        id: MODEL,
        ...(v.embeddings && { kind: "embeddings" }),
        pricing: { prompt: "1", completion: v.embeddings ? "0" : "2" },
        max_output: 1000,
        order: "fixed",
        endpoints: [
          { provider: "primary", model: "up-model" },
          { provider: "secondary", model: "up-model" },
        ],
      },
    ],
    retry: FAST_RETRY,
  };
}

describe.each(VARIANTS)("$name", (v) => {
  let primary: FakeUpstream, secondary: FakeUpstream, gw: TestGateway, key: string;
  /** While set, both upstreams answer every attempt (failover rounds included) with this status. */
  let failing: number | undefined;
  const answer = () => (req: Recorded) => (failing ? error(failing) : v.embeddings ? embeddingsFallback(req) : v.ok());

  beforeAll(async () => {
    primary = await startFakeUpstream(answer());
    secondary = await startFakeUpstream(answer());
    gw = await startGateway(configOf(v, primary.url, secondary.url));
    key = await gw.createKey({ budget: { amount: 5_000_000_000n, period: "total" } });
    await gw.addCredits("10");
  });
  afterAll(async () => {
    await gw?.close();
    await primary?.close();
    await secondary?.close();
  });
  beforeEach(() => {
    primary.requests.length = 0;
    secondary.requests.length = 0;
  });

  const send = (k: string | null = key) => {
    const r = v.request();
    const auth: Record<string, string> = k === null ? {} : { authorization: `Bearer ${k}` };
    return fetch(`${gw.url}${r.path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth, ...r.headers },
      body: JSON.stringify(r.body),
    });
  };
  /** The key's budget left: its limit minus spend and open holds (GET /v1/key). */
  const budgetLeft = async () => ((await (await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } })).json()) as any).budget.remaining;
  const completed = async (res: Response) => {
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return { text, row: await ledgerRowOf(gw.db, res) };
  };

  test("auth: no key, or an unknown one, is a 401 before any upstream call", async () => {
    for (const k of [null, "sk-unknown0000000000000000000000000000000000000"]) {
      const res = await send(k);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain("invalid_api_key");
    }
    expect(primary.requests.length + secondary.requests.length).toBe(0);
  });

  test("limits: a key's window of one request refuses the second with 429 and Retry-After", async () => {
    const limited = await gw.createKey({ rpm: 1 });
    await gw.addCredits("1");
    expect((await send(limited)).status).toBe(200);
    const res = await send(limited);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("402: an account without balance is refused before any upstream call", async () => {
    const broke = await gw.createKey({ account: `broke-${v.endpoint}` });
    const res = await send(broke);
    expect(res.status).toBe(402);
    expect(await res.text()).toContain("insufficient_credits");
    expect(primary.requests.length + secondary.requests.length).toBe(0);
  });

  test("the ledger row: endpoint, provider, the upstream's usage, its cost", async () => {
    const { row } = await completed(await send());
    expect(row).toMatchObject({
      endpoint: v.endpoint,
      provider: "primary",
      model: MODEL,
      status: "ok",
      usage_source: v.embeddings ? expect.any(String) : "provider",
    });
    if (!v.embeddings) expect([row.prompt_tokens, row.completion_tokens]).toEqual([10, 5]);
    expect(Number(row.cost)).toBeGreaterThan(0);
  });

  test("the log line: one JSON record of the request, its route and status", async () => {
    const res = await send();
    const { row } = await completed(res);
    const id = res.headers.get("x-request-id")!;
    await expect.poll(() => logLines(gw).find((l) => l.includes(id)), { timeout: 5000 }).toMatch(new RegExp(`"route":"${escape(v.route)}".*"status":200`));
    expect(row.request_id).toBe(id);
  });

  test("/metrics: the request is counted under the endpoint's route", async () => {
    const labels = { route: v.route, status: "200", model: MODEL, provider: "primary" };
    const before = sampleOf(await scrape(gw.url), "gateway_requests_total", labels);
    await completed(await send());
    await expect.poll(async () => sampleOf(await scrape(gw.url), "gateway_requests_total", labels), { timeout: 5000 }).toBe(before + 1);
  });

  test.runIf(v.stream)("a cut stream is billed for what was delivered: a row marked error, with the tokens that went out", async () => {
    primary.queue(v.cut!());
    const res = await send();
    expect(res.status).toBe(200);
    await res.text();
    const row: LedgerRow = await ledgerRowOf(gw.db, res);
    // Counted here from the text delivered, or the provider's running count (Anthropic's message_start) where it sent one.
    expect(row).toMatchObject({ status: "error", provider: "primary" });
    expect(["estimated", "provider"]).toContain(row.usage_source);
    expect(row.completion_tokens).toBeGreaterThan(0);
    expect(secondary.requests).toHaveLength(0); // the first byte went out: no failover after it
  });

  test("failover before the first byte: the primary's 503 is answered by the secondary, billed once there", async () => {
    primary.queue(error(503));
    const { row } = await completed(await send());
    expect(primary.requests).toHaveLength(1);
    expect(secondary.requests).toHaveLength(1);
    expect(row).toMatchObject({ provider: "secondary", status: "ok" });
  });

  // Last: the failures below change the endpoints' health, and with it the router's order.
  test("the hold is released on every failure: both endpoints failing leave the key's budget and balance untouched", async () => {
    const before = { budget: await budgetLeft(), balance: await gw.store.balance("default") };
    for (const status of [400, 503]) {
      failing = status;
      const res = await send().finally(() => (failing = undefined));
      expect(res.status, await res.text()).toBe(status);
    }
    expect(await budgetLeft()).toBe(before.budget);
    expect(await gw.store.balance("default")).toBe(before.balance);
  });
});

function logLines(gw: TestGateway): string[] {
  return gw.logFile ? readFileSync(gw.logFile, "utf8").split("\n") : [];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
