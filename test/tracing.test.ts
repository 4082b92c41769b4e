/**
 * OpenTelemetry (issue 14, optional part): with `otel.endpoint` set, a local OTLP/HTTP
 * receiver gets one SERVER span per request and one CLIENT span per upstream attempt under
 * it, carrying the request id; a client's traceparent is continued; without the setting
 * nothing is sent.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, test } from "vitest";
import { startFakeUpstream } from "./helpers/fake-upstream.js";
import { twoProviderConfig, startGateway } from "./helpers/gateway.js";
import { bearer, post } from "./helpers/http.js";
import { completion, error } from "./helpers/openai-wire.js";

interface Received {
  path: string;
  contentType: string | undefined;
  body: any;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

/** An OTLP/HTTP receiver: records every export. */
async function receiver(): Promise<{ url: string; got: Received[] }> {
  const got: Received[] = [];
  const server: Server = createServer(async (req, res) => {
    let raw = "";
    for await (const c of req) raw += c;
    got.push({ path: req.url ?? "", contentType: req.headers["content-type"], body: JSON.parse(raw) });
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

const attr = (span: any, key: string) => {
  const v = span.attributes.find((a: any) => a.key === key)?.value;
  return v?.stringValue ?? v?.intValue;
};

async function failoverGateway(extra: Record<string, unknown>) {
  const primary = await startFakeUpstream(() => error(503, "overloaded"));
  const secondary = await startFakeUpstream(() => completion("from secondary", { prompt_tokens: 3, completion_tokens: 4 }));
  const gw = await startGateway({
    ...twoProviderConfig("acme/chat", primary.url, secondary.url, { primary: "sk-primary-otel-1111", secondary: "sk-secondary-otel-2222" }),
    ...extra,
  });
  cleanups.push(
    () => primary.close(),
    () => secondary.close(),
  );
  const key = await gw.createKey();
  await gw.addCredits("1");
  return { gw, key };
}

test("a span per request and per upstream attempt, with the request id, under the client's trace", async () => {
  const otlp = await receiver();
  const { gw, key } = await failoverGateway({ otel: { endpoint: otlp.url, serviceName: "gw-under-test" } });
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const res = await post(
    gw.url,
    "/v1/chat/completions",
    { model: "acme/chat", messages: [{ role: "user", content: "hi" }] },
    { ...bearer(key), traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
  );
  expect(res.status).toBe(200);
  await res.json();
  await gw.close(); // sends what is queued
  expect(otlp.got.length).toBeGreaterThan(0);
  expect(otlp.got[0]!.path).toBe("/v1/traces");
  expect(otlp.got[0]!.contentType).toBe("application/json");
  const resource = otlp.got[0]!.body.resourceSpans[0].resource;
  expect(attr(resource, "service.name")).toBe("gw-under-test");
  const spans = otlp.got.flatMap((g) => g.body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
  const id = res.headers.get("x-request-id");
  const server = spans.find((s: any) => s.kind === 2 && attr(s, "gateway.request_id") === id);
  expect(server).toMatchObject({ traceId, parentSpanId: "00f067aa0ba902b7", name: "/v1/chat/completions", status: { code: 1 } });
  expect(attr(server, "gen_ai.request.model")).toBe("acme/chat");
  expect(attr(server, "gen_ai.provider.name")).toBe("secondary");
  expect(attr(server, "gen_ai.usage.input_tokens")).toBe("3");
  const attempts = spans.filter((s: any) => s.kind === 3 && s.parentSpanId === server.spanId);
  expect(attempts.map((s: any) => [s.name, s.status.code, s.traceId])).toEqual([
    ["upstream primary", 2, traceId],
    ["upstream secondary", 1, traceId],
  ]);
  for (const s of [server, ...attempts]) expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
  // The attempts lie within the request.
  expect(BigInt(attempts[0].startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(server.startTimeUnixNano));
  expect(BigInt(attempts[1].endTimeUnixNano)).toBeLessThanOrEqual(BigInt(server.endTimeUnixNano));
});

test("without otel.endpoint nothing is recorded or sent", async () => {
  const otlp = await receiver();
  const { gw, key } = await failoverGateway({});
  const res = await post(gw.url, "/v1/chat/completions", { model: "acme/chat", messages: [{ role: "user", content: "hi" }] }, bearer(key));
  await res.json();
  expect(gw.server.gateway.obs.tracing).toBe(false);
  await gw.close();
  expect(otlp.got).toEqual([]);
});
