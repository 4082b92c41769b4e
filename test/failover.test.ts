/**
 * Failover (docs/limits.md, docs/limits.md): every way a provider fails, circuits, ordering,
 * backoff and its deadline, client disconnects, and what is never retried. Two fake
 * upstreams play two provider instances of plugin `openai` serving one model.
 */
import { rows } from "./helpers/rows.js";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, test } from "vitest";
import { encrypt, loadSecret } from "../src/access/byok.js";
import { retryAfterMs } from "../src/upstream/upstream.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, expectError } from "./helpers/http.js";
import { completion, error, stream } from "./helpers/openai-wire.js";

const MODEL = "acme/chat";

interface Setup {
  gw: TestGateway;
  primary: FakeUpstream;
  secondary: FakeUpstream;
  key: string;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

/** Answers as an OpenAI upstream would, streamed when asked to. */
const answer =
  (text: string) =>
  (req: Recorded): Reply =>
    req.body?.stream ? stream([text.slice(0, 5), text.slice(5)]) : completion(text);
const slow = (reply: Reply, delayMs: number): Reply => ({ ...(reply as { json: unknown }), delayMs });

async function setup(extra: Record<string, unknown> = {}, model: Record<string, unknown> = {}, primaryUrl?: string): Promise<Setup> {
  const primary = await startFakeUpstream(answer("from primary"));
  const secondary = await startFakeUpstream(answer("from secondary"));
  cleanups.push(
    () => primary.close(),
    () => secondary.close(),
  );
  const gw = await startGateway({
    providers: {
      primary: { plugin: "openai", baseUrl: `${primaryUrl ?? primary.url}/v1`, apiKey: "sk-primary-upstream-secret-1111" },
      secondary: { plugin: "openai", baseUrl: `${secondary.url}/v1`, apiKey: "sk-secondary-upstream-secret-2222" },
    },
    models: [
      {
        id: MODEL,
        pricing: { prompt: "1", completion: "2" },
        max_output: 1000,
        ...model,
        endpoints: [
          { provider: "primary", model: "p-model" },
          { provider: "secondary", model: "s-model" },
        ],
      },
    ],
    retry: { initialInterval: 10, maxInterval: 50, exponent: 1.5, maxElapsedTime: 5000 },
    server: { timeouts: { firstByte: 300 } },
    ...extra,
  });
  cleanups.push(() => gw.close());
  const key = await gw.createKey();
  await gw.addCredits("10");
  return { gw, primary, secondary, key };
}

/** Each request a conversation of its own, so the router's order decides (prompt-cache affinity: test/affinity.test.ts). */
let asked = 0;
const ask = (s: Setup, extra: Record<string, unknown> = {}, key = s.key, signal?: AbortSignal) =>
  fetch(`${s.gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: `hi ${++asked}` }], ...extra }),
    signal,
  });

/** The answer's text, from a JSON completion or a complete SSE stream (ending in [DONE]). */
async function content(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return ((await res.json()) as any).choices[0].message.content;
  const events = (await res.text())
    .split("\n\n")
    .filter(Boolean)
    .map((e) => e.slice("data: ".length));
  expect(events.at(-1)).toBe("[DONE]");
  return events
    .slice(0, -1)
    .map((e) => JSON.parse(e).choices[0]?.delta?.content ?? "")
    .join("");
}

const query = <T>(s: Setup, sql: string, ...params: unknown[]): Promise<T[]> => rows<T>(s.gw.db, sql, ...params);

const attempts = (s: Setup, requestId: string) =>
  query<{ provider: string; outcome: string; status: number | null }>(
    s,
    "SELECT provider, outcome, http_status AS status FROM attempts WHERE request_id = ? ORDER BY id",
    requestId,
  );
const ledger = async (s: Setup, requestId: string) =>
  (
    await query<{ provider: string | null; attempts: number; status: string; http_status: number }>(
      s,
      "SELECT provider, attempts, status, http_status FROM ledger WHERE request_id = ?",
      requestId,
    )
  )[0];

interface ProviderHealth {
  id: string;
  status: string;
  circuit: string;
  success_rate: number | null;
}
async function health(s: Setup, id: string): Promise<ProviderHealth> {
  const body = (await (await fetch(`${s.gw.url}/v1/health/providers`)).json()) as { providers: ProviderHealth[] };
  return body.providers.find((p) => p.id === id)!;
}

const FAILURES: Array<{ name: string; reply: () => Reply; outcome: string; status: number | null }> = [
  { name: "429 with Retry-After", reply: () => error(429, "slow down", { "retry-after": "20" }), outcome: "rate_limited", status: 429 },
  { name: "500", reply: () => error(500), outcome: "failure", status: 500 },
  { name: "503", reply: () => error(503), outcome: "failure", status: 503 },
  { name: "529 (overloaded)", reply: () => error(529), outcome: "failure", status: 529 },
  { name: "a hang (no first byte within server.timeouts.firstByte)", reply: () => ({ hang: true }), outcome: "failure", status: null },
  { name: "a connection reset", reply: () => ({ reset: true }), outcome: "failure", status: null },
  { name: "a drop after 200 before the first delta", reply: () => stream([], undefined, { cut: true }), outcome: "failure", status: null },
];

describe.each(FAILURES)("the primary fails with $name", ({ name, reply, outcome, status }) => {
  const rateLimited = status === 429;

  test("every request still succeeds through the secondary, streamed and not; attempts and health show the failure", async () => {
    const s = await setup({ health: { failureThreshold: 1000 } }, { order: "fixed" });
    s.primary.fallback = reply;
    const started = Date.now();
    for (const streamed of [false, true]) {
      const res = await ask(s, { stream: streamed });
      expect(await content(res), `${name}, stream: ${streamed}`).toBe("from secondary");
      const id = res.headers.get("x-request-id")!;
      const failed = { provider: "primary", outcome, status };
      // A Retry-After holds the primary for later requests too: the second one goes straight to the secondary.
      const expected = rateLimited && streamed ? [] : [failed];
      // A request that succeeded at its first attempt is its ledger row alone; failovers are logged attempt by attempt.
      const logged = expected.length ? [...expected, { provider: "secondary", outcome: "success", status: 200 }] : [];
      await expect
        .poll(async () => await ledger(s, id))
        .toMatchObject({ provider: "secondary", attempts: expected.length + 1, status: "ok", http_status: 200 });
      expect(await attempts(s, id)).toEqual(logged);
    }
    expect(s.primary.requests).toHaveLength(rateLimited ? 1 : 2);
    expect(s.secondary.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(10_000); // the 20 s Retry-After did not delay the failover
    const p = await health(s, "primary");
    // 429s say nothing about whether the provider works: excluded from its success rate.
    if (rateLimited) expect(p).toMatchObject({ status: "healthy", success_rate: null, circuit: "closed" });
    else expect(p).toMatchObject({ status: "degraded", success_rate: 0, circuit: "closed" });
    expect(await health(s, "secondary")).toMatchObject({ status: "healthy", success_rate: 1 });
  });
});

/** A TCP listener whose accept queue is full: connecting to it hangs in the handshake. */
async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const release = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     const server = require("node:net").createServer();
     server.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
       parentPort.postMessage(server.address().port);
       Atomics.wait(workerData, 0, 0); // this thread never accepts
     });`,
    { eval: true, workerData: release },
  );
  const port = await new Promise<number>((resolve) => worker.once("message", resolve));
  const fillers: Socket[] = [];
  for (let i = 0; i < 16; i++) {
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    fillers.push(socket);
    const connected = await Promise.race([new Promise((r) => socket.once("connect", () => r(true))), sleep(300).then(() => false)]);
    if (!connected) break; // the queue is full
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      Atomics.store(release, 0, 1);
      Atomics.notify(release, 0);
      for (const s of fillers) s.destroy();
      await worker.terminate();
    },
  };
}

test("a connect timeout (an upstream that never completes the handshake) fails over", async () => {
  const hole = await blackHole();
  cleanups.push(() => hole.close());
  const s = await setup({ server: { timeouts: { connect: 300, firstByte: 10_000 } }, health: { failureThreshold: 1000 } }, { order: "fixed" }, hole.url);
  const started = Date.now();
  const res = await ask(s);
  expect(await content(res)).toBe("from secondary");
  expect(Date.now() - started).toBeLessThan(5000);
  expect(await attempts(s, res.headers.get("x-request-id")!)).toEqual([
    { provider: "primary", outcome: "failure", status: null },
    { provider: "secondary", outcome: "success", status: 200 },
  ]);
});

describe("circuit breaker", () => {
  test("opens after failureThreshold failures in a row, skips the primary, closes after the cooldown when the half-open probe succeeds", async () => {
    const s = await setup({ health: { failureThreshold: 2, cooldown: 800 } }, { order: "fixed" });
    s.primary.fallback = () => error(503); // an outage: a 500 from one key alone never opens a circuit (test/hostile.test.ts);
    expect(await content(await ask(s))).toBe("from secondary");
    expect(await health(s, "primary")).toMatchObject({ circuit: "closed" });
    expect(await content(await ask(s))).toBe("from secondary");
    expect(await health(s, "primary")).toMatchObject({ circuit: "open", status: "down" });
    expect(await content(await ask(s, { stream: true }))).toBe("from secondary");
    expect(s.primary.requests).toHaveLength(2); // not contacted while open

    s.primary.fallback = answer("from primary");
    await sleep(900);
    expect(await health(s, "primary")).toMatchObject({ circuit: "half_open" });
    expect(await content(await ask(s))).toBe("from primary");
    expect(s.primary.requests).toHaveLength(3);
    expect(await health(s, "primary")).toMatchObject({ circuit: "closed" });
    expect(await content(await ask(s))).toBe("from primary");
  });

  test("a failed half-open probe opens the circuit again at once", async () => {
    const s = await setup({ health: { failureThreshold: 1, cooldown: 600 } }, { order: "fixed" });
    s.primary.fallback = () => error(503);
    expect(await content(await ask(s))).toBe("from secondary");
    await sleep(700);
    expect(await content(await ask(s))).toBe("from secondary"); // the probe failed
    expect(s.primary.requests).toHaveLength(2);
    expect(await health(s, "primary")).toMatchObject({ circuit: "open" });
    expect(await content(await ask(s))).toBe("from secondary");
    expect(s.primary.requests).toHaveLength(2);
  });

  test("a probe cut short by the client does not keep the circuit half-open for ever", async () => {
    const s = await setup({ health: { failureThreshold: 1, cooldown: 600 }, server: { timeouts: { firstByte: 10_000 } } }, { order: "fixed" });
    s.primary.fallback = () => error(500);
    expect(await content(await ask(s))).toBe("from secondary");
    await sleep(700);
    s.primary.fallback = () => slow(completion("late"), 5000);
    const client = new AbortController();
    const gone = ask(s, {}, s.key, client.signal).catch(() => "aborted");
    await expect.poll(() => s.primary.requests.length).toBe(2); // the probe is in flight
    client.abort();
    expect(await gone).toBe("aborted");
    await expect.poll(() => s.primary.aborted).toBe(1);
    s.primary.fallback = answer("from primary");
    expect(await content(await ask(s))).toBe("from primary"); // a new probe went through
    expect(await health(s, "primary")).toMatchObject({ circuit: "closed" });
  });
});

describe("ordering", () => {
  const slowPrimary = (s: Setup) => {
    s.primary.fallback = () => slow(completion("from primary"), 400);
  };

  test("by latency: after a few requests the faster endpoint serves", async () => {
    const s = await setup({ server: { timeouts: { firstByte: 10_000 } } });
    slowPrimary(s);
    const served: string[] = [];
    for (let i = 0; i < 5; i++) served.push(await content(await ask(s)));
    // Neither is measured at first (list order); then the unmeasured secondary, then the fastest.
    expect(served).toEqual(["from primary", ...Array(4).fill("from secondary")]);
  });

  test("order: fixed keeps list order whatever the latency", async () => {
    const s = await setup({ server: { timeouts: { firstByte: 10_000 } } }, { order: "fixed" });
    slowPrimary(s);
    for (let i = 0; i < 4; i++) expect(await content(await ask(s))).toBe("from primary");
    expect(s.secondary.requests).toHaveLength(0);
  });

  test("an endpoint that just failed ranks after one that did not", async () => {
    const s = await setup({ health: { failureThreshold: 1000 } });
    s.primary.queue(error(500));
    expect(await content(await ask(s))).toBe("from secondary");
    expect(await content(await ask(s))).toBe("from secondary");
    expect(s.primary.requests).toHaveLength(1);
  });
});

describe("backoff between rounds (every endpoint failed)", () => {
  test("rounds wait initialInterval × exponent^(n-1), capped by maxInterval, within maxElapsedTime; then a generic 503", async () => {
    const s = await setup({ retry: { initialInterval: 100, exponent: 2, maxInterval: 400, maxElapsedTime: 1000 }, health: { failureThreshold: 1000 } });
    const rounds: number[] = [];
    s.primary.fallback = () => (rounds.push(Date.now()), error(503, "primary-detail-marker"));
    s.secondary.fallback = () => error(500, "secondary-detail-marker");
    const started = Date.now();
    const res = await ask(s);
    const elapsed = Date.now() - started;
    const err = await expectError(res, 503, "upstream_error", "upstream_unavailable");
    expect(err.message).not.toMatch(/marker|primary|secondary/);
    // Waits 100, 200, 400 (then 400, capped, would pass the deadline): four rounds.
    expect(rounds).toHaveLength(4);
    expect(s.secondary.requests).toHaveLength(4);
    const gaps = rounds.slice(1).map((t, i) => t - rounds[i]!);
    [100, 200, 400].forEach((wait, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(wait - 5);
      expect(gaps[i]).toBeLessThan(wait + 400);
    });
    expect(elapsed).toBeGreaterThanOrEqual(650);
    expect(elapsed).toBeLessThan(2500);
  });

  test("maxElapsedTime bounds the whole request", async () => {
    const s = await setup({ retry: { initialInterval: 50, exponent: 1.5, maxInterval: 1000, maxElapsedTime: 400 } });
    s.primary.fallback = () => error(503);
    s.secondary.fallback = () => error(503);
    const started = Date.now();
    await expectError(await ask(s, { stream: true }), 503, "upstream_error", "upstream_unavailable");
    expect(Date.now() - started).toBeLessThan(1500);
    expect(s.primary.requests.length).toBeGreaterThan(1);
  });

  test("an upstream Retry-After longer than the deadline gives up at once", async () => {
    const s = await setup({ retry: { initialInterval: 10, exponent: 1.5, maxInterval: 50, maxElapsedTime: 2000 } });
    s.primary.fallback = () => error(429, "later", { "retry-after": "30" });
    s.secondary.fallback = () => error(503, "later", { "retry-after": "30" });
    const started = Date.now();
    await expectError(await ask(s), 503, "upstream_error", "upstream_unavailable");
    expect(Date.now() - started).toBeLessThan(1000);
    expect([s.primary.requests.length, s.secondary.requests.length]).toEqual([1, 1]);
  });

  test("the next round waits for the upstream's Retry-After", async () => {
    const s = await setup({ retry: { initialInterval: 10, exponent: 1.5, maxInterval: 50, maxElapsedTime: 5000 } });
    s.primary.queue(error(503, "busy", { "retry-after": "1" }));
    s.secondary.fallback = () => error(503, "busy", { "retry-after": "1" });
    const started = Date.now();
    expect(await content(await ask(s))).toBe("from primary");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(s.primary.requests).toHaveLength(2);
  });

  test("an endpoint is not tried again before its Retry-After, even while other endpoints are", async () => {
    const s = await setup({
      retry: { initialInterval: 50, exponent: 1, maxInterval: 50, maxElapsedTime: 1500 },
      health: { failureThreshold: 1000, cooldown: 200 }, // the shared hold is capped by the cooldown; this request's is not
    });
    const times: number[] = [];
    s.primary.fallback = () => (times.push(Date.now()), error(429, "later", { "retry-after": "1" }));
    s.secondary.fallback = () => error(500);
    await expectError(await ask(s), 503, "upstream_error", "upstream_unavailable");
    expect(s.secondary.requests.length).toBeGreaterThan(5);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(990);
  });
});

test("every circuit open, none half-open before the deadline: a 503 at once, nobody contacted", async () => {
  const s = await setup({
    retry: { initialInterval: 10, exponent: 1.5, maxInterval: 50, maxElapsedTime: 3000 },
    health: { failureThreshold: 1, cooldown: 30_000 },
  });
  s.primary.fallback = () => error(503);
  s.secondary.fallback = () => error(503);
  let started = Date.now();
  await expectError(await ask(s), 503, "upstream_error", "upstream_unavailable");
  expect(Date.now() - started).toBeLessThan(2000); // not the 3 s deadline: no circuit reopens within it
  started = Date.now();
  await expectError(await ask(s, { stream: true }), 503, "upstream_error", "upstream_unavailable");
  expect(Date.now() - started).toBeLessThan(1000);
  expect([s.primary.requests.length, s.secondary.requests.length]).toEqual([1, 1]);
});

test("Retry-After parsing: retry-after-ms, seconds, an HTTP date; empty or junk is no value", () => {
  expect(retryAfterMs({ "retry-after-ms": "250", "retry-after": "9" })).toBe(250);
  expect(retryAfterMs({ "retry-after": "2" })).toBe(2000);
  const date = retryAfterMs({ "retry-after": new Date(Date.now() + 5000).toUTCString() })!;
  expect(date).toBeGreaterThan(3000);
  expect(date).toBeLessThanOrEqual(5000);
  for (const junk of [{}, { "retry-after": "" }, { "retry-after-ms": " " }, { "retry-after": "soon" }]) expect(retryAfterMs(junk)).toBeNull();
});

describe("client disconnects", () => {
  test("abort the in-flight upstream call and try no other endpoint", async () => {
    const s = await setup({ server: { timeouts: { firstByte: 10_000 } } }, { order: "fixed" });
    s.primary.fallback = () => slow(completion("late"), 5000);
    const client = new AbortController();
    const gone = ask(s, {}, s.key, client.signal).catch(() => "aborted");
    await expect.poll(() => s.primary.requests.length).toBe(1);
    client.abort();
    expect(await gone).toBe("aborted");
    await expect.poll(() => s.primary.aborted).toBe(1);
    // 499 (nginx's "client closed request"): recorded as cancelled, not as a gateway error.
    await expect.poll(() => query<{ status: string }>(s, "SELECT status, http_status FROM ledger")).toEqual([{ status: "cancelled", http_status: 499 }]);
    await sleep(300);
    expect(s.secondary.requests).toHaveLength(0);
    expect(s.primary.requests).toHaveLength(1);
  });

  test("stop the rounds: no attempt after the client left during a backoff wait", async () => {
    const s = await setup({ retry: { initialInterval: 1500, exponent: 2, maxInterval: 5000, maxElapsedTime: 20_000 } });
    s.primary.fallback = () => error(500);
    s.secondary.fallback = () => error(500);
    const client = new AbortController();
    const gone = ask(s, {}, s.key, client.signal).catch(() => "aborted");
    await expect.poll(() => s.secondary.requests.length).toBe(1);
    await sleep(100);
    client.abort();
    expect(await gone).toBe("aborted");
    await expect.poll(() => query<{ status: string }>(s, "SELECT status, http_status FROM ledger")).toEqual([{ status: "cancelled", http_status: 499 }]);
    await sleep(1800);
    expect([s.primary.requests.length, s.secondary.requests.length]).toEqual([1, 1]);
  });
});

test("after the first byte a failure is an error event without [DONE], and no failover", async () => {
  const s = await setup({}, { order: "fixed" });
  s.primary.fallback = () => stream(["partial ", "answer"], undefined, { cut: true, delayMs: 20 });
  const res = await ask(s, { stream: true });
  expect(res.status).toBe(200);
  const events = (await res.text())
    .split("\n\n")
    .filter(Boolean)
    .map((e) => e.slice("data: ".length));
  expect(events).not.toContain("[DONE]");
  expect(JSON.parse(events[0]!).choices[0].delta.content).toBe("partial ");
  expect(JSON.parse(events.at(-1)!).error).toMatchObject({ type: "upstream_error", request_id: res.headers.get("x-request-id") });
  expect(s.secondary.requests).toHaveLength(0);
});

describe.each([401, 403])("upstream %i on the platform key", (status) => {
  test("marks the provider misconfigured and fails over (docs/cli.md)", async () => {
    const s = await setup({ health: { failureThreshold: 1000 } }, { order: "fixed" });
    s.primary.fallback = () => error(status, "Incorrect API key provided: sk-prim****1111");
    expect(await content(await ask(s))).toBe("from secondary");
    expect(await health(s, "primary")).toMatchObject({ status: "misconfigured", circuit: "open" });
    expect(await content(await ask(s, { stream: true }))).toBe("from secondary");
    expect(s.primary.requests).toHaveLength(1);
  });
});

test("a BYOK key the provider refuses fails over without marking the provider down for everyone", async () => {
  const s = await setup({ health: { failureThreshold: 1 } }, { order: "fixed" });
  const own = "sk-account-own-key-rejected-9999";
  await s.gw.store.ensureAccount("byok", Date.now());
  const secret = loadSecret(s.gw.db, { GATEWAY_SECRET: "test-secret" });
  await s.gw.store.setByok({ account: "byok", provider: "openai", secret: encrypt(secret, "byok", "openai", own), last4: "9999", updatedAt: Date.now() });
  const byokKey = await s.gw.createKey({ account: "byok" });
  s.primary.fallback = (req) => (req.headers.authorization === `Bearer ${own}` ? error(401) : answer("from primary")(req));
  expect(await content(await ask(s, {}, byokKey))).toBe("from secondary");
  expect(s.secondary.requests.at(-1)!.headers.authorization).toBe(`Bearer ${own}`);
  expect(await health(s, "primary")).toMatchObject({ status: "healthy", circuit: "closed" });
  expect(await content(await ask(s))).toBe("from primary"); // the platform key still works there
});

test("upstream 400 is the client's 400: not retried, no failover, and the circuit stays closed", async () => {
  const s = await setup({ health: { failureThreshold: 2 } }, { order: "fixed" });
  s.primary.fallback = () => error(400, "primary-400-detail");
  for (let i = 0; i < 3; i++) {
    const err = await expectError(await ask(s), 400, "invalid_request_error", "upstream_rejected");
    expect(err.message).not.toContain("primary-400-detail");
  }
  expect(s.primary.requests).toHaveLength(3);
  expect(s.secondary.requests).toHaveLength(0);
  expect(await health(s, "primary")).toMatchObject({ status: "healthy", circuit: "closed" });
});
