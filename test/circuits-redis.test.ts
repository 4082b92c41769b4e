/**
 * Circuits shared through Redis (docs/fleet.md: a circuit opened by one process is seen by
 * all within 5 s). Gateways on one Redis prefix, each with its own SQLite file; a provider
 * that fails behind gateway A is skipped by gateway B, a successful probe through A closes
 * it in B, and a gateway started later finds the circuits still open.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Reply } from "./helpers/fake-upstream.js";
import { twoProviderConfig, type TestGateway } from "./helpers/gateway.js";
import { healthOf, sharedKey, startFleet, waitFor } from "./helpers/fleet.js";
import { bearer } from "./helpers/http.js";
import { completion, error } from "./helpers/openai-wire.js";
import { keysUnder, REDIS_URL, startRedisServer, useRedis } from "./helpers/redis.js";

const MODEL = "acme/chat";
const COOLDOWN = 3_000;
const r = useRedis();
let primary: FakeUpstream;
let secondary: FakeUpstream;
let primaryAnswer: () => Reply = () => error(503);
const gateways: TestGateway[] = [];

beforeAll(async () => {
  primary = await startFakeUpstream(() => primaryAnswer());
  secondary = await startFakeUpstream(() => completion("from secondary"));
});
afterAll(async () => {
  for (const gw of gateways) await gw.close();
  await primary?.close();
  await secondary?.close();
});

async function fleet(n: number, redisUrl = REDIS_URL): Promise<TestGateway[]> {
  const started = await startFleet(n, {
    ...twoProviderConfig(MODEL, primary.url, secondary.url),
    health: { failureThreshold: 2, cooldown: COOLDOWN },
    redis: { url: redisUrl, prefix: r.prefix },
  });
  gateways.push(...started);
  return started;
}

/** Each request a conversation of its own, so the router's order decides (prompt-cache affinity: test/affinity.test.ts). */
let asked = 0;
async function chat(gw: TestGateway, key: string): Promise<string> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: `hi ${++asked}` }] }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
}

const circuitOf = async (gw: TestGateway, id: string) => (await healthOf(gw)).providers.find((p) => p.id === id)?.circuit;

test("a circuit opened by one gateway is open in the others within 5 s, they skip it, and a successful probe closes it everywhere", async () => {
  const [a, b] = await fleet(2);
  const key = await sharedKey([a!, b!]);
  expect(await circuitOf(b!, "primary")).toBe("closed");

  // Two outages in a row through A open primary's circuit there (failureThreshold 2).
  primaryAnswer = () => error(503);
  for (let i = 0; i < 2; i++) expect(await chat(a!, key)).toBe("from secondary");
  expect(await circuitOf(a!, "primary")).toBe("open");
  const seenIn = await waitFor("B sees primary's circuit open", async () => (await circuitOf(b!, "primary")) === "open", 5_000);
  expect(seenIn).toBeLessThan(5_000);

  // B has never sent primary a request, and now does not: it goes straight to secondary.
  const before = primary.requests.length;
  for (let i = 0; i < 3; i++) expect(await chat(b!, key)).toBe("from secondary");
  expect(primary.requests.length).toBe(before);
  expect((await healthOf(b!)).providers.find((p) => p.id === "primary")?.status).toBe("down");

  // A gateway started now finds the circuit still open (kept in Redis until it half-opens).
  const [late] = await fleet(1);
  await waitFor("a late gateway sees the open circuit", async () => (await circuitOf(late!, "primary")) === "open", 5_000);

  // After the cooldown A's probe succeeds: B's circuit, half-open by then, closes without a probe of its own.
  primaryAnswer = () => completion("from primary");
  await sleep(COOLDOWN + 100);
  expect(await circuitOf(b!, "primary")).toBe("half_open");
  expect(await chat(a!, key)).toBe("from primary");
  await waitFor("B sees primary's circuit closed", async () => (await circuitOf(b!, "primary")) === "closed", 5_000);
  expect(primary.requests.length).toBe(before + 1);
  expect(await chat(b!, key)).toBe("from primary");
  expect(await keysUnder(r.client, `${r.prefix}circuit:`)).toEqual([]);
});

test("a gateway started while Redis was down hears circuits once Redis is there", async () => {
  const server = await startRedisServer();
  try {
    await server.stop();
    const [b] = await fleet(1, server.url);
    expect((await healthOf(b!)).limits).toBe("per_process");
    await server.start();
    await waitFor("B connected", async () => (await healthOf(b!)).limits === "shared");
    const [a] = await fleet(1, server.url);
    const key = await sharedKey([a!, b!]);
    primaryAnswer = () => error(503);
    for (let i = 0; i < 2; i++) expect(await chat(a!, key)).toBe("from secondary");
    expect(await circuitOf(a!, "primary")).toBe("open");
    await waitFor("B sees primary's circuit open", async () => (await circuitOf(b!, "primary")) === "open", 5_000);
    // Closed before Redis goes, so the gateways' connections do not outlive it in the log.
    for (const gw of [a!, b!]) (await gw.close(), gateways.splice(gateways.indexOf(gw), 1));
  } finally {
    await server.stop();
  }
});
