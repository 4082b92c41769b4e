/**
 * GET /v1/health/providers (docs/http.md): its shape, success rates that leave 429s out,
 * the overall status, and no key, URL credential or upstream error text in it.
 */
import { afterEach, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { twoProviderConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, expectLimitHeaders } from "./helpers/http.js";
import { completion, error, stream } from "./helpers/openai-wire.js";

const MODEL = "acme/chat";
const PLANTED = {
  primaryKey: "sk-planted-primary-key-4f8a1c",
  secondaryKey: "sk-planted-secondary-key-9b2e7d",
  vaultKey: "sk-planted-vault-key-3c6d0a",
  urlPassword: "planted-url-password-77",
  upstreamText: "planted-upstream-error-text-5e1",
};

interface ProviderHealth {
  id: string;
  status: string;
  latency_ms: number | null;
  success_rate: number | null;
  checked_at: string | null;
  circuit: string;
}
interface HealthBody {
  status: string;
  providers: ProviderHealth[];
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

const answer =
  (text: string) =>
  (req: Recorded): Reply =>
    req.body?.stream ? stream([text]) : completion(text);

async function setup(extra: Record<string, unknown> = {}): Promise<{ gw: TestGateway; primary: FakeUpstream; secondary: FakeUpstream; key: string }> {
  const primary = await startFakeUpstream(answer("from primary"));
  const secondary = await startFakeUpstream(answer("from secondary"));
  cleanups.push(
    () => primary.close(),
    () => secondary.close(),
  );
  const base = twoProviderConfig(MODEL, primary.url, secondary.url, { primary: PLANTED.primaryKey, secondary: PLANTED.secondaryKey });
  const gw = await startGateway({
    ...base,
    providers: {
      ...(base.providers as Record<string, unknown>),
      // Configured but serving no model here: listed, with a credential in its URL.
      vault: { plugin: "openai", baseUrl: `http://admin:${PLANTED.urlPassword}@127.0.0.1:9/v1`, apiKey: PLANTED.vaultKey },
    },
    health: { failureThreshold: 1000 },
    ...extra,
  });
  cleanups.push(() => gw.close());
  const key = await gw.createKey();
  await gw.addCredits("10");
  return { gw, primary, secondary, key };
}

/** Each request a conversation of its own, so the router's order decides (prompt-cache affinity: test/affinity.test.ts). */
let asked = 0;
const chat = (gw: TestGateway, key: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: `hi ${++asked}` }] }),
  });

async function health(gw: TestGateway): Promise<{ res: Response; text: string; body: HealthBody }> {
  const res = await fetch(`${gw.url}/v1/health/providers`); // public: no Authorization
  const text = await res.text();
  return { res, text, body: JSON.parse(text) as HealthBody };
}
const byId = (body: HealthBody, id: string) => body.providers.find((p) => p.id === id)!;

function expectShape(body: HealthBody): void {
  expect(["ok", "degraded", "down"]).toContain(body.status);
  for (const p of body.providers) {
    expect(p).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        status: expect.stringMatching(/^(healthy|degraded|down|misconfigured)$/),
        circuit: expect.stringMatching(/^(closed|open|half_open)$/),
      }),
    );
    expect(p.latency_ms === null || (Number.isInteger(p.latency_ms) && p.latency_ms >= 0)).toBe(true);
    expect(p.success_rate === null || (p.success_rate >= 0 && p.success_rate <= 1)).toBe(true);
    expect(p.checked_at === null || new Date(p.checked_at).toISOString() === p.checked_at).toBe(true);
  }
}

test("shape before any traffic: every configured provider healthy, nothing measured yet", async () => {
  const { gw } = await setup();
  const { res, body } = await health(gw);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  expectLimitHeaders(res);
  expectShape(body);
  expect(body.status).toBe("ok");
  expect(body.providers.map((p) => p.id).sort()).toEqual(["primary", "secondary", "vault"]);
  for (const p of body.providers) expect(p).toMatchObject({ status: "healthy", latency_ms: null, success_rate: null, checked_at: null, circuit: "closed" });
});

test("success rates leave 429s out; latency and checked_at follow traffic", async () => {
  const { gw, primary, key } = await setup();
  const started = Date.now();
  primary.queue(error(429, PLANTED.upstreamText));
  expect((await chat(gw, key)).status).toBe(200); // primary 429, secondary served
  expect((await chat(gw, key)).status).toBe(200); // primary served
  let body = (await health(gw)).body;
  expectShape(body);
  expect(byId(body, "primary")).toMatchObject({ status: "healthy", success_rate: 1, circuit: "closed" });
  expect(byId(body, "secondary")).toMatchObject({ status: "healthy", success_rate: 1 });
  const checked = Date.parse(byId(body, "primary").checked_at!);
  expect(checked).toBeGreaterThanOrEqual(started - 1000);
  expect(checked).toBeLessThanOrEqual(Date.now());
  expect(byId(body, "primary").latency_ms).toEqual(expect.any(Number));

  primary.queue(error(500, PLANTED.upstreamText));
  expect((await chat(gw, key)).status).toBe(200);
  body = (await health(gw)).body;
  expect(byId(body, "primary")).toMatchObject({ status: "degraded", success_rate: 0.5, circuit: "closed" });
  expect(body.status).toBe("degraded");
});

test("overall status: degraded while one provider's key is refused (misconfigured), down when all are", async () => {
  const { gw, primary, secondary, key } = await setup();
  primary.fallback = () => error(401, PLANTED.upstreamText);
  expect((await chat(gw, key)).status).toBe(200);
  let body = (await health(gw)).body;
  expect(byId(body, "primary")).toMatchObject({ status: "misconfigured", circuit: "open" });
  expect(body.status).toBe("degraded");

  secondary.fallback = () => error(403, PLANTED.upstreamText);
  expect((await chat(gw, key)).status).toBe(502); // upstream_auth_failed (docs/cli.md)
  body = (await health(gw)).body;
  expect(byId(body, "secondary")).toMatchObject({ status: "misconfigured", circuit: "open" });
  expect(body.status).toBe("degraded"); // the unused `vault` is still healthy
});

test("down when every provider is down", async () => {
  const primary = await startFakeUpstream(() => error(401, PLANTED.upstreamText));
  cleanups.push(() => primary.close());
  const gw = await startGateway({
    providers: { primary: { plugin: "openai", baseUrl: `${primary.url}/v1`, apiKey: PLANTED.primaryKey } },
    models: [{ id: MODEL, pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider: "primary", model: "p-model" }] }],
    retry: { initialInterval: 10, maxInterval: 50, exponent: 1.5, maxElapsedTime: 500 },
  });
  cleanups.push(() => gw.close());
  const key = await gw.createKey();
  await gw.addCredits("10");
  expect((await chat(gw, key)).status).toBe(502); // upstream_auth_failed (docs/cli.md)
  const body = (await health(gw)).body;
  expect(body.providers).toEqual([expect.objectContaining({ id: "primary", status: "misconfigured", circuit: "open" })]);
  expect(body.status).toBe("down");
});

test("no key, URL credential or upstream error text ever appears in it", async () => {
  const { gw, primary, secondary, key } = await setup();
  primary.queue(error(500, PLANTED.upstreamText), error(429, PLANTED.upstreamText), error(401, `${PLANTED.upstreamText} ${PLANTED.primaryKey}`));
  secondary.queue(error(503, PLANTED.upstreamText));
  for (let i = 0; i < 3; i++) await (await chat(gw, key)).arrayBuffer();
  const { text, body } = await health(gw);
  expectShape(body);
  expect(byId(body, "primary").status).not.toBe("healthy"); // the failures above were seen
  for (const secret of [...Object.values(PLANTED), "admin:", "upstream says no", "Bearer", "sk-", primary.url, secondary.url]) {
    expect(text).not.toContain(secret);
  }
});
