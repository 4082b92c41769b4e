/**
 * Edges of shape and wording (docs/http.md): a limit is named when it is passed, every refusal
 * is in the error shape (a request without Host too), routes are counted by what they are
 * (`/metrics/` is `/metrics`), and the auth scheme is case-insensitive (RFC 9110 §11.1).
 */
import { connect } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { expectError, post } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { parseMetrics } from "./helpers/prometheus.js";

const METRICS_TOKEN = "metrics-token-edges-0123456789";
let fake: FakeUpstream;
let gw: TestGateway;
let key: string;
beforeAll(async () => {
  fake = await startFakeUpstream(() => completion("ok"));
  gw = await startGateway(openaiConfig(fake.url, { metrics: { token: METRICS_TOKEN, loopback: false } }));
  key = await gw.createKey();
  await gw.addCredits("1");
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

test("more than 2,048 embedding inputs: the message names the limit", async () => {
  const input = Array.from({ length: 2049 }, () => "x");
  const res = await post(gw.url, "/v1/embeddings", { model: "openai/gpt-4o-mini", input }, { authorization: `Bearer ${key}` });
  expect((await expectError(res, 400, "invalid_request_error", null)).message).toBe("input: at most 2048 items");
});

test("a request without Host is a 400 in the error shape, with the usual headers", async () => {
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(gw.url).port), "127.0.0.1", () => socket.write("GET /v1/models HTTP/1.1\r\n\r\n"));
    let text = "";
    socket
      .on("data", (b) => (text += b.toString()))
      .on("end", () => resolve(text))
      .on("error", reject);
  });
  const [head, body] = raw.split("\r\n\r\n");
  expect(head).toMatch(/^HTTP\/1\.1 400 /);
  expect(head).toMatch(/\r\nx-request-id: req_[0-9a-f]{32}/i);
  expect(head).toMatch(/\r\nx-ratelimit-limit: \d+/i);
  expect(JSON.parse(body!).error).toMatchObject({ type: "invalid_request_error", code: "bad_request", message: expect.stringContaining("Host") });
});

test("the Bearer scheme in any case: API keys and the metrics token", async () => {
  for (const scheme of ["bearer", "BEARER", "Bearer"]) {
    const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `${scheme} ${key}` } });
    expect(res.status, scheme).toBe(200);
    expect((await fetch(`${gw.url}/metrics`, { headers: { authorization: `${scheme} ${METRICS_TOKEN}` } })).status, scheme).toBe(200);
  }
  expect((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Basic ${key}` } })).status).toBe(401);
});

test("/metrics/ is counted as the route /metrics", async () => {
  const auth = { authorization: `Bearer ${METRICS_TOKEN}` };
  expect((await fetch(`${gw.url}/metrics/`, { headers: auth })).status).toBe(200);
  // A record is counted once its request is over: the next scrape sees the one before it.
  await new Promise((r) => setTimeout(r, 400));
  const samples = parseMetrics(await (await fetch(`${gw.url}/metrics`, { headers: auth })).text());
  const routes = samples.filter((x) => x.name === "gateway_requests_total").map((x) => x.labels.route);
  expect(routes).not.toContain("other");
  expect(routes).toContain("/metrics");
});
