/**
 * HTTP/2 to https upstreams (docs/limits.md, "HTTP/2 to providers"; src/upstream/h2-origin.ts):
 * the gateway answers and streams through h2 over TLS, opens another connection once one
 * carries `streamsPerConnection` streams, fails over from an h2 upstream's error status, reset
 * stream or silence, reaches an HTTP/1.1-only https server too, and trusts a private CA only
 * when `server.upstream.caFile` names it. Certificates are made per run (helpers/tls.ts).
 */
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { startFakeUpstream } from "./helpers/fake-upstream.js";
import { FAST_RETRY, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, expectError } from "./helpers/http.js";
import { completion, stream } from "./helpers/openai-wire.js";
import { makeCerts, startH2Upstream, type Certs, type H2Reply, type H2Request } from "./helpers/tls.js";

const MODEL = "acme/chat";
let certs: Certs;
beforeAll(() => void (certs = makeCerts()));
afterAll(() => certs.remove());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

const chunk = (content: string) =>
  JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const usage = JSON.stringify({
  id: "c1",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 2 },
});
const answers = (req: H2Request): H2Reply =>
  req.body?.stream ? { sse: [chunk("Hello "), chunk("over h2"), usage] } : { json: (completion("Hello over h2") as { json: unknown }).json };

async function gateway(
  providers: Record<string, unknown>,
  upstream: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<{ gw: TestGateway; key: string }> {
  const gw = await startGateway({
    server: { upstream: { caFile: certs.caFile, ...upstream } },
    providers,
    models: [{ id: MODEL, pricing: { prompt: "1", completion: "2" }, endpoints: Object.keys(providers).map((provider) => ({ provider, model: "m" })) }],
    retry: FAST_RETRY,
    ...extra,
  });
  cleanups.push(() => gw.close());
  const key = await gw.createKey();
  await gw.addCredits("10");
  return { gw, key };
}

const post = (gw: TestGateway, key: string, body: Record<string, unknown> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Hi" }], ...body }),
  });

async function h2(reply: (req: H2Request) => H2Reply = answers, allowHTTP1 = false) {
  const fake = await startH2Upstream(certs, reply, allowHTTP1);
  cleanups.push(() => fake.close());
  return fake;
}

describe("an https provider over HTTP/2", () => {
  test("answers and streams through h2", async () => {
    const fake = await h2();
    const { gw, key } = await gateway({ tls: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-h2-upstream-secret-0001" } });
    const json = await post(gw, key);
    expect(json.status).toBe(200);
    expect(((await json.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("Hello over h2");
    const sse = await post(gw, key, { stream: true });
    expect(sse.status).toBe(200);
    const text = await sse.text();
    expect(text).toContain('"content":"Hello "');
    expect(text).toContain('"content":"over h2"');
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(fake.requests.map((r) => [r.httpVersion, r.path])).toEqual([
      ["2.0", "/v1/chat/completions"],
      ["2.0", "/v1/chat/completions"],
    ]);
    expect(fake.connections).toBe(1); // both on one connection
  });

  test("more streams than streamsPerConnection open more connections, none over the cap", async () => {
    const fake = await h2((req) => (req.body?.stream ? { sse: [chunk("a"), chunk("b"), chunk("c"), usage], gapMs: 150 } : answers(req)));
    const { gw, key } = await gateway(
      { tls: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-h2-upstream-secret-0002" } },
      { streamsPerConnection: 3 },
    );
    const all = await Promise.all(
      Array.from({ length: 10 }, () => post(gw, key, { stream: true }).then(async (r) => [r.status, (await r.text()).includes("[DONE]")])),
    );
    expect(all).toEqual(Array.from({ length: 10 }, () => [200, true]));
    expect(fake.peakPerConnection).toBe(3);
    expect(fake.connections).toBe(4); // ceil(10 / 3)
    expect(new Set(fake.requests.map((r) => r.connection)).size).toBe(4);
  });

  test("a client that leaves mid-stream cancels the upstream stream", async () => {
    const fake = await h2(() => ({ sse: Array.from({ length: 20 }, (_, i) => chunk(`w${i} `)), gapMs: 100 }));
    const { gw, key } = await gateway({ tls: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-h2-upstream-secret-0008" } });
    const leave = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: "user", content: "Hi" }] }),
      signal: leave.signal,
    });
    const reader = res.body!.getReader();
    await reader.read(); // the first bytes arrived: the stream runs
    leave.abort();
    for (let i = 0; i < 50 && fake.aborted === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(fake.aborted).toBe(1);
  });

  test.each([
    ["a 503", "http_503", { status: 503, json: { error: { message: "overloaded" } } }],
    ["a reset stream", "reset", { reset: true }],
    ["no first byte within firstByte", "timeout", { hang: true }],
  ] as Array<[string, string, H2Reply]>)("%s from an h2 upstream fails over to the next endpoint (reason %s)", async (_, reason, reply) => {
    const fake = await h2(() => reply);
    const plain = await startFakeUpstream((req) => (req.body?.stream ? stream(["from ", "plain"]) : completion("from plain")));
    cleanups.push(() => plain.close());
    const { gw, key } = await gateway(
      {
        tls: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-h2-upstream-secret-0003" },
        plain: { plugin: "openai", baseUrl: `${plain.url}/v1`, apiKey: "sk-plain-upstream-secret-0004" },
      },
      {},
      { server: { upstream: { caFile: certs.caFile }, timeouts: { firstByte: 300 } } },
    );
    const res = await post(gw, key);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("from plain");
    expect(fake.requests).toHaveLength(1);
    const health = (await (await fetch(`${gw.url}/v1/health/providers`)).json()) as { providers: Array<{ id: string; last_error: { reason: string } | null }> };
    expect(health.providers.find((p) => p.id === "tls")!.last_error!.reason).toBe(reason);
  });

  test("http2: false reaches it over HTTP/1.1 (the CA still trusted)", async () => {
    const fake = await h2(answers, true);
    const { gw, key } = await gateway({ tls: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-h2-upstream-secret-0005" } }, { http2: false });
    expect((await post(gw, key)).status).toBe(200);
    expect(fake.requests.map((r) => r.httpVersion)).toEqual(["1.1"]);
  });

  test("an https server without h2 in ALPN is reached over HTTP/1.1, and remembered", async () => {
    const seen: string[] = [];
    const server = createHttpsServer({ key: certs.key, cert: certs.cert }, (req, res) => {
      seen.push(req.httpVersion);
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify((completion("h1 only") as { json: unknown }).json)));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const { gw, key } = await gateway({ tls: { plugin: "openai", baseUrl: url, apiKey: "sk-h1-upstream-secret-0007" } });
    for (let i = 0; i < 2; i++) expect((await post(gw, key)).status).toBe(200);
    expect(seen).toEqual(["1.1", "1.1"]);
  });
});

test("a private CA is trusted only through server.upstream.caFile: without it the request fails, reason tls", async () => {
  const fake = await h2();
  const gw = await startGateway({
    providers: { tls: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-h2-upstream-secret-0006" } },
    models: [{ id: MODEL, pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider: "tls", model: "m" }] }],
    retry: { ...FAST_RETRY, maxElapsedTime: 200 },
  });
  cleanups.push(() => gw.close());
  const key = await gw.createKey();
  await gw.addCredits("10");
  await expectError(await post(gw, key), 503, "upstream_error", "upstream_unavailable");
  expect(fake.requests).toHaveLength(0);
  const health = (await (await fetch(`${gw.url}/v1/health/providers`)).json()) as { providers: Array<{ id: string; last_error: { reason: string } | null }> };
  expect(health.providers.find((p) => p.id === "tls")!.last_error!.reason).toBe("tls");
});
