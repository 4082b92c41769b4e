/**
 * GET /metrics (docs/observability.md, issue 14), scraped over loopback as Prometheus would: the
 * counters move by exactly what each request did, failovers, 429s and open circuits show,
 * labels stay bounded, and the endpoint is closed to clients that are neither loopback nor
 * holders of the metrics token.
 */
import { afterEach, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { twoProviderConfig, openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, expectError, post } from "./helpers/http.js";
import { completion, error, stream } from "./helpers/openai-wire.js";
import { messageItem, responsesAnswer } from "./helpers/responses-wire.js";
import { parseConfig } from "../src/config/config.js";
import { isLoopback } from "../src/app/metrics-route.js";
import { parseMetrics, sampleOf, scrape, type Sample } from "./helpers/prometheus.js";

const MODEL = "openai/gpt-4o-mini";
const CHAT = "/v1/chat/completions";
const hi = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

const EMBEDDING = {
  json: {
    object: "list",
    data: [{ object: "embedding", index: 0, embedding: [0.25, -0.5] }],
    model: "text-embedding-3-small",
    usage: { prompt_tokens: 2, total_tokens: 2 },
  },
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

async function setup(extra: Record<string, unknown> = {}): Promise<{ fake: FakeUpstream; gw: TestGateway; key: string }> {
  const fake = await startFakeUpstream((req) =>
    req.path.endsWith("/embeddings")
      ? EMBEDDING
      : req.path.endsWith("/responses") // OpenAI's own Responses API, called natively (docs/responses.md)
        ? responsesAnswer([messageItem("Hello")], { input_tokens: 1000, output_tokens: 250 })
        : req.body?.stream
          ? stream(["Hel", "lo"], { prompt_tokens: 7, completion_tokens: 3 })
          : completion("Hello", { prompt_tokens: 1000, completion_tokens: 250 }),
  );
  const gw = await startGateway(openaiConfig(fake.url, extra));
  cleanups.push(
    () => fake.close(),
    () => gw.close(),
  );
  const key = await gw.createKey();
  await gw.addCredits("10");
  return { fake, gw, key };
}

/** Nano-USD from the exposed USD value: exact for any amount below $9M (2^53 nano). */
const nano = (samples: Sample[], labels: Record<string, string>) => Math.round(sampleOf(samples, "gateway_cost_usd_total", labels) * 1e9);

describe("counters", () => {
  test("a request with known usage moves the request, token and cost counters by exactly its amounts", async () => {
    const { gw, key } = await setup();
    const before = await scrape(gw.url);
    const res = await post(gw.url, CHAT, hi, bearer(key));
    expect(res.status).toBe(200);
    await res.json();
    const streamed = await post(gw.url, CHAT, { ...hi, stream: true }, bearer(key));
    await streamed.text();
    const labels = { model: MODEL, provider: "openai" };
    // A stream is settled just after its last byte: wait for it to be counted.
    await expect
      .poll(
        async () =>
          sampleOf(await scrape(gw.url), "gateway_tokens_total", { ...labels, kind: "completion" }) -
          sampleOf(before, "gateway_tokens_total", { ...labels, kind: "completion" }),
      )
      .toBe(253);
    const after = await scrape(gw.url);
    const delta = (name: string, l: Record<string, string>) => sampleOf(after, name, l) - sampleOf(before, name, l);
    expect(delta("gateway_requests_total", { route: CHAT, status: "200", ...labels })).toBe(2);
    expect(delta("gateway_tokens_total", { ...labels, kind: "prompt" })).toBe(1000 + 7);
    expect(delta("gateway_tokens_total", { ...labels, kind: "completion" })).toBe(250 + 3);
    // $0.15 and $0.60 per 1M tokens: 150 and 600 nano-USD per token.
    expect(nano(after, labels) - nano(before, labels)).toBe(1007 * 150 + 253 * 600);
    expect(
      sampleOf(after, "gateway_request_duration_seconds_count", { route: CHAT }) - sampleOf(before, "gateway_request_duration_seconds_count", { route: CHAT }),
    ).toBe(2);
    expect(sampleOf(after, "gateway_upstream_duration_seconds_count", { provider: "openai" })).toBe(2);
    expect(sampleOf(after, "gateway_overhead_seconds_count", { provider: "openai" })).toBe(2);
    // Node's process metrics are there too.
    expect(after.some((s) => s.name === "process_cpu_user_seconds_total")).toBe(true);
    expect(after.some((s) => s.name === "nodejs_eventloop_lag_seconds")).toBe(true);
  });

  test("a model id the client made up is labelled `unknown`, never as sent", async () => {
    const { gw, key } = await setup();
    const res = await post(gw.url, CHAT, { ...hi, model: "acme/made-up-model-7731" }, bearer(key));
    await expectError(res, 404, "not_found", "model_not_found");
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    expect(text).not.toContain("made-up-model-7731");
    expect(sampleOf(parseMetrics(text), "gateway_requests_total", { route: CHAT, status: "404", model: "unknown", provider: "none" })).toBe(1);
    // No key, no account, no client address in any label.
    expect(text).not.toContain(key);
    expect(text).not.toContain("127.0.0.1");
    expect(text).not.toMatch(/account="/);
  });

  test("a failover moves gateway_failovers_total for the provider that failed", async () => {
    const primary = await startFakeUpstream(() => error(503, "overloaded"));
    const secondary = await startFakeUpstream(() => completion("from secondary"));
    const gw = await startGateway(
      twoProviderConfig("acme/chat", primary.url, secondary.url, { primary: "sk-primary-metrics-1111", secondary: "sk-secondary-metrics-2222" }),
    );
    cleanups.push(
      () => primary.close(),
      () => secondary.close(),
      () => gw.close(),
    );
    const key = await gw.createKey();
    await gw.addCredits("1");
    const res = await post(gw.url, CHAT, { ...hi, model: "acme/chat" }, bearer(key));
    expect(res.status).toBe(200);
    await res.json();
    const m = await scrape(gw.url);
    expect(sampleOf(m, "gateway_failovers_total", { provider: "primary" })).toBe(1);
    expect(sampleOf(m, "gateway_failovers_total", { provider: "secondary" })).toBe(0);
    expect(sampleOf(m, "gateway_requests_total", { route: CHAT, status: "200", model: "acme/chat", provider: "secondary" })).toBe(1);
    expect(sampleOf(m, "gateway_upstream_duration_seconds_count", { provider: "primary" })).toBe(1);
  });

  test("a 429 moves gateway_rate_limited_total for the tier that refused", async () => {
    const { gw } = await setup();
    const key = await gw.createKey({ rpm: 1 });
    expect((await post(gw.url, CHAT, hi, bearer(key))).status).toBe(200);
    await expectError(await post(gw.url, CHAT, hi, bearer(key)), 429, "rate_limit_error", "rate_limited");
    const m = await scrape(gw.url);
    expect(sampleOf(m, "gateway_rate_limited_total", { tier: "key" })).toBe(1);
    expect(sampleOf(m, "gateway_requests_total", { route: CHAT, status: "429", model: "unknown", provider: "none" })).toBe(1);
  });

  test("an open circuit shows in gateway_circuit_open", async () => {
    const { gw, key, fake } = await setup({
      health: { failureThreshold: 1, cooldown: 60_000 },
      retry: { initialInterval: 5, maxInterval: 10, exponent: 1.5, maxElapsedTime: 50 },
    });
    const before = await scrape(gw.url);
    expect(sampleOf(before, "gateway_circuit_open", { provider: "openai" })).toBe(0);
    // Only configured instances: not the built-in BYOK providers present (key-less) for accounts' own keys.
    expect(before.filter((s) => s.name === "gateway_circuit_open").map((s) => s.labels.provider)).toEqual(["openai"]);
    fake.fallback = () => error(503, "down");
    const res = await post(gw.url, CHAT, hi, bearer(key));
    await expectError(res, 503, "upstream_error", "upstream_unavailable");
    const m = await scrape(gw.url);
    expect(sampleOf(m, "gateway_circuit_open", { provider: "openai" })).toBe(1);
    expect(sampleOf(m, "gateway_requests_total", { route: CHAT, status: "503", model: MODEL, provider: "none" })).toBe(1);
  });

  test("in-flight requests are counted while they run", async () => {
    const { gw, key, fake } = await setup();
    let release!: () => void;
    fake.queue({ ...(completion("slow") as { json: unknown }), waitFor: new Promise<void>((r) => (release = r)) });
    const pending = post(gw.url, CHAT, hi, bearer(key));
    await expect.poll(async () => sampleOf(await scrape(gw.url), "gateway_inflight_requests"), { timeout: 5000 }).toBe(2); // the chat request and this scrape
    release();
    expect((await pending).status).toBe(200);
    expect(sampleOf(await scrape(gw.url), "gateway_inflight_requests")).toBe(1);
  });
});

describe("who may scrape", () => {
  const TOKEN = "metrics-token-5f2a9c7e1b";

  test("loopback clients by default; with the exemption off, only the token opens it, anyone else gets the 404 of an unknown route", async () => {
    const { gw } = await setup({ metrics: { token: TOKEN, loopback: false } });
    await expectError(await fetch(`${gw.url}/metrics`), 404, "not_found", "not_found");
    await expectError(await fetch(`${gw.url}/metrics`, { headers: bearer("metrics-token-wrong-000000") }), 404, "not_found", "not_found");
    const ok = await fetch(`${gw.url}/metrics`, { headers: bearer(TOKEN) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    expect(await ok.text()).toContain("# TYPE gateway_requests_total counter");
    // The default: a loopback scraper needs no token.
    const open = await setup();
    expect((await fetch(`${open.gw.url}/metrics`)).status).toBe(200);
  });

  test("what counts as loopback: 127.0.0.0/8 and ::1, also IPv4-mapped; nothing else", () => {
    for (const ip of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(isLoopback(ip), ip).toBe(true);
    for (const ip of ["10.0.0.1", "192.168.1.127", "::ffff:10.0.0.1", "::2", "fe80::1", "unknown"]) expect(isLoopback(ip), ip).toBe(false);
  });

  test("a token shorter than 16 characters is a config error naming the key", () => {
    expect(() => parseConfig({ metrics: { token: "short" } })).toThrow("metrics.token: expected at least 16 characters");
  });

  test("metrics.enabled: false closes the endpoint", async () => {
    const { gw } = await setup({ metrics: { enabled: false } });
    await expectError(await fetch(`${gw.url}/metrics`), 404, "not_found", "not_found");
  });
});

describe("Server-Timing", () => {
  const timing = (res: Response) => {
    const h = res.headers.get("server-timing") ?? "";
    const m = /^gateway;dur=([\d.]+), upstream;dur=([\d.]+)$/.exec(h);
    expect(m, `Server-Timing: ${h}`).not.toBeNull();
    return { gateway: Number(m![1]), upstream: Number(m![2]) };
  };

  test("on JSON and streamed answers: the upstream wait, and a gateway share smaller than the total the client measured", async () => {
    const { gw, key, fake } = await setup();
    fake.queue({ ...(completion("slow") as { json: unknown }), delayMs: 60 });
    let t0 = performance.now();
    const res = await post(gw.url, CHAT, hi, bearer(key));
    const total = performance.now() - t0;
    await res.json();
    const json = timing(res);
    expect(json.upstream).toBeGreaterThanOrEqual(55);
    expect(json.gateway).toBeLessThan(total - json.upstream);

    fake.queue({ ...stream(["a", "b"]), delayMs: 30 } as never);
    t0 = performance.now();
    const s = await post(gw.url, CHAT, { ...hi, stream: true }, bearer(key));
    const head = performance.now() - t0; // the header came with the first byte
    await s.text();
    const st = timing(s);
    expect(st.upstream).toBeGreaterThanOrEqual(25); // to the first delta: one event's delay
    expect(st.gateway).toBeLessThan(head);
  });

  test("on embeddings and Responses answers, and on errors too", async () => {
    const { gw, key } = await setup();
    const resp = await post(gw.url, "/v1/responses", { model: MODEL, input: "hi" }, bearer(key));
    expect(resp.status).toBe(200);
    await resp.json();
    expect(timing(resp).upstream).toBeGreaterThan(0);
    const emb = await post(gw.url, "/v1/embeddings", { model: "openai/text-embedding-3-small", input: "hello" }, bearer(key));
    expect(emb.status).toBe(200);
    await emb.json();
    expect(timing(emb).upstream).toBeGreaterThan(0);
    const m = await scrape(gw.url);
    expect(sampleOf(m, "gateway_requests_total", { route: "/v1/embeddings", status: "200", model: "openai/text-embedding-3-small", provider: "openai" })).toBe(
      1,
    );
    expect(sampleOf(m, "gateway_tokens_total", { model: "openai/text-embedding-3-small", provider: "openai", kind: "prompt" })).toBe(2);
    expect(sampleOf(m, "gateway_requests_total", { route: "/v1/responses", status: "200", model: MODEL, provider: "openai" })).toBe(1);
    // Routed by h3 but answered by their own Exchange: counted once, and no longer in flight.
    const total = (route: string) => m.filter((x) => x.name === "gateway_requests_total" && x.labels.route === route).reduce((a, x) => a + x.value, 0);
    expect(total("/v1/embeddings")).toBe(1);
    expect(total("/v1/responses")).toBe(1);
    expect(sampleOf(m, "gateway_inflight_requests")).toBe(1); // this scrape
    const err = await post(gw.url, CHAT, { ...hi, model: "acme/nope" }, bearer(key));
    expect(err.status).toBe(404);
    expect(timing(err).upstream).toBe(0);
  });
});
