/**
 * The cost on every answer (docs/routing.md): `X-Gateway-Cost`, the ledger row's charge as a
 * USD decimal, on each non-streamed answer of chat, Responses, embeddings, Messages and
 * Gemini; `usage.cost` on chat answers and a stream's usage chunk when the request asks
 * `usage: {include: true}`, under strict compat. One OpenAI-compatible fake serves them all.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { encrypt, loadSecret } from "../src/access/byok.js";
import { openaiEmbeddingReply } from "./helpers/embeddings-wire.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { rows } from "./helpers/rows.js";
import { completion, stream } from "./helpers/openai-wire.js";

let gw: TestGateway;
let fake: FakeUpstream;
let key: string;
beforeAll(async () => {
  fake = await startFakeUpstream((req) => {
    if (req.path.endsWith("/embeddings")) return openaiEmbeddingReply(req);
    return req.body?.stream ? stream(["cost ", "me"]) : completion("cost me");
  });
  gw = await startGateway({
    providers: {
      local: { plugin: "openai-compatible", baseUrl: `${fake.url}/v1`, apiKey: "sk-cost-upstream-secret-3333" },
      own: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-cost-platform-secret-4444" },
    },
    models: [
      { id: "acme/c", pricing: { prompt: "0.7", completion: "1.3" }, max_output: 1000, endpoints: [{ provider: "local", model: "c-model" }] },
      { id: "acme/own", pricing: { prompt: "0.7", completion: "1.3" }, max_output: 1000, endpoints: [{ provider: "own", model: "own-model" }] },
      { id: "acme/free", pricing: { prompt: "0", completion: "0" }, max_output: 1000, endpoints: [{ provider: "local", model: "free-model" }] },
      { id: "acme/e", kind: "embeddings", pricing: { prompt: "0.9", completion: "0" }, endpoints: [{ provider: "local", model: "e-model" }] },
    ],
  });
  key = await gw.createKey({ account: "cost" });
  await gw.addCredits("1", "cost");
});
afterAll(async () => {
  await gw.close();
  await fake.close();
});

const C_COST = 14_900; // 12 × $0.7 + 5 × $1.3 per 1M, in nano-USD

async function charged(res: Response): Promise<number> {
  const id = res.headers.get("x-request-id")!;
  await expect.poll(async () => (await rows(gw.db, "SELECT cost FROM ledger WHERE request_id = ?", id)).length).toBe(1);
  return (await rows<{ cost: number }>(gw.db, "SELECT cost FROM ledger WHERE request_id = ?", id))[0]!.cost;
}

const send = (path: string, body: unknown, headers: Record<string, string> = bearer(key)) =>
  fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

const CASES: Array<[string, string, unknown, Record<string, string>?]> = [
  ["chat", "/v1/chat/completions", { model: "acme/c", messages: [{ role: "user", content: "hi" }] }],
  ["responses", "/v1/responses", { model: "acme/c", input: "hi" }],
  ["embeddings", "/v1/embeddings", { model: "acme/e", input: "twelve chars" }],
  ["messages", "/v1/messages", { model: "acme/c", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }, { "anthropic-version": "2023-06-01" }],
  ["gemini", "/v1beta/models/acme/c:generateContent", { contents: [{ role: "user", parts: [{ text: "hi" }] }] }],
];

test.each(CASES)("%s: X-Gateway-Cost is the ledger row's charge", async (_name, path, body, extra = {}) => {
  const res = await send(path, body, { ...bearer(key), "x-api-key": key, "x-goog-api-key": key, ...extra });
  expect(res.status).toBe(200);
  const cost = await charged(res);
  expect(cost).toBeGreaterThan(0);
  expect(res.headers.get("x-gateway-cost")).toBe(String(cost / 1e9));
});

test("a free model answers X-Gateway-Cost: 0", async () => {
  const res = await send("/v1/chat/completions", { model: "acme/free", messages: [{ role: "user", content: "hi" }] });
  expect(res.headers.get("x-gateway-cost")).toBe("0");
});

test("a BYOK answer: X-Gateway-Cost 0, usage.cost 0, the row's charge 0", async () => {
  await gw.store.ensureAccount("byok", Date.now());
  const secret = loadSecret(gw.db, { GATEWAY_SECRET: "test-secret" });
  const own = "sk-account-own-key-cost-5555";
  await gw.store.setByok({ account: "byok", provider: "openai", secret: encrypt(secret, "byok", "openai", own), last4: "5555", updatedAt: Date.now() });
  const byokKey = await gw.createKey({ account: "byok" });
  const res = await send("/v1/chat/completions", { model: "acme/own", messages: [{ role: "user", content: "hi" }], usage: { include: true } }, bearer(byokKey));
  expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${own}`);
  expect(res.headers.get("x-gateway-cost")).toBe("0");
  expect(((await res.json()) as { usage: { cost: string } }).usage.cost).toBe("0");
  expect(await charged(res)).toBe(0);
});

test("usage: {include: true} adds usage.cost to a chat answer, under strict compat; never sent upstream", async () => {
  const res = await send("/v1/chat/completions", { model: "acme/c", messages: [{ role: "user", content: "hi" }], usage: { include: true } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { usage: Record<string, unknown> };
  expect(body.usage).toEqual({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, cost: "0.0000149" });
  expect(await charged(res)).toBe(C_COST);
  expect(fake.requests.at(-1)!.body).not.toHaveProperty("usage");
});

test("without it the usage has no cost", async () => {
  const res = await send("/v1/chat/completions", { model: "acme/c", messages: [{ role: "user", content: "hi" }] });
  expect((await res.json()) as { usage: Record<string, unknown> }).toMatchObject({ usage: expect.not.objectContaining({ cost: expect.anything() }) });
});

test("a stream's usage chunk carries usage.cost, the row's charge", async () => {
  const res = await send("/v1/chat/completions", { model: "acme/c", messages: [{ role: "user", content: "hi" }], stream: true, usage: { include: true } });
  const events = (await res.text()).split("\n\n").filter(Boolean);
  expect(events.at(-1)).toBe("data: [DONE]");
  const last = JSON.parse(events.at(-2)!.slice("data: ".length)) as { usage: Record<string, unknown> };
  expect(last.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5, cost: "0.0000149" });
  expect(await charged(res)).toBe(C_COST);
});

test("GET /v1/openapi.json documents the routing fields and X-Gateway-Cost", async () => {
  const doc = (await (await fetch(`${gw.url}/v1/openapi.json`, { headers: bearer(key) })).json()) as any;
  for (const name of ["ChatCompletionRequest", "OpenAIChatCompletionRequest", "CreateResponseRequest", "MessagesRequest"]) {
    expect(Object.keys(doc.components.schemas[name].properties)).toEqual(expect.arrayContaining(["models", "provider", "usage"]));
  }
  for (const path of ["/v1/chat/completions", "/v1/responses", "/v1/embeddings", "/v1/messages"]) {
    expect(doc.paths[path].post.responses["200"].headers).toHaveProperty("X-Gateway-Cost");
  }
});
