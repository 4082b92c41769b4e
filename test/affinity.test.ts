/**
 * Prompt-cache affinity (docs/limits.md, "Prompt-cache affinity"): a conversation's turns go to
 * the endpoint that served it while that endpoint is healthy; another conversation, or another
 * account's identical prompt, follows the router's normal order; health wins, and a
 * conversation moved by a failure stays where it moved. Two OpenAI-format fakes play two
 * provider instances of one model. The router ranks an endpoint never measured as fastest
 * (docs/limits.md), so without affinity a second request goes to the endpoint the first did not.
 */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion, error, stream } from "./helpers/openai-wire.js";
import { sampleOf, scrape } from "./helpers/prometheus.js";
import { messageItem, responseObject } from "./helpers/responses-wire.js";

const MODEL = "acme/chat";
const SYSTEM = { role: "system", content: "You are a careful assistant. ".repeat(40) };

interface Setup {
  gw: TestGateway;
  east: FakeUpstream;
  west: FakeUpstream;
  key: string;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

/** Chat completions (streamed when asked), or OpenAI's own Responses API (served natively: docs/responses.md). */
const answer = (r: Recorded, text: string): Reply =>
  r.path.endsWith("/responses")
    ? { json: responseObject([messageItem(text)], { input_tokens: 12, output_tokens: 5 }) }
    : r.body?.stream
      ? stream([text])
      : completion(text);

async function setup(model: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<Setup> {
  const east = await startFakeUpstream((r) => answer(r, "from east"));
  const west = await startFakeUpstream((r) => answer(r, "from west"));
  const gw = await startGateway({
    providers: {
      east: { plugin: "openai", baseUrl: `${east.url}/v1`, apiKey: "sk-east-upstream-secret-1111" },
      west: { plugin: "openai", baseUrl: `${west.url}/v1`, apiKey: "sk-west-upstream-secret-2222" },
    },
    models: [
      {
        id: MODEL,
        pricing: { prompt: "1", completion: "2" },
        max_output: 1000,
        ...model,
        endpoints: [
          { provider: "east", model: "e-model" },
          { provider: "west", model: "w-model" },
        ],
      },
    ],
    retry: { initialInterval: 10, maxInterval: 50, exponent: 1.5, maxElapsedTime: 2000 },
    ...extra,
  });
  let closed = false;
  const close = gw.close.bind(gw);
  gw.close = async () => void (closed || ((closed = true), await close()));
  cleanups.push(
    () => east.close(),
    () => west.close(),
    () => gw.close(),
  );
  const key = await gw.createKey({ account: "acme" });
  await gw.addCredits("10", "acme");
  return { gw, east, west, key };
}

/** One chat request; resolves with the instance that answered. */
async function ask(s: Setup, messages: unknown[], extra: Record<string, unknown> = {}, key = s.key): Promise<"east" | "west"> {
  const res = await fetch(`${s.gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify({ model: MODEL, messages, ...extra }),
  });
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  expect(res.status).toBe(200);
  return body.choices[0]!.message.content === "from east" ? "east" : "west";
}

/** Turn `n` (1-based) of a conversation: the system prompt, then n user turns with the answers between. */
function turn(n: number, topic = "the tides"): unknown[] {
  const messages: unknown[] = [SYSTEM];
  for (let i = 1; i <= n; i++) {
    if (i > 1) messages.push({ role: "assistant", content: `answer ${i - 1}` });
    messages.push({ role: "user", content: i === 1 ? `Tell me about ${topic}.` : `And then ${i}?` });
  }
  return messages;
}

/** The request lines of a closed gateway's log, in order. */
function affinities(s: Setup): Array<string | undefined> {
  expect(s.gw.logFile, "the suite runs with a log folder (test/global-setup.ts)").toBeDefined();
  return readFileSync(s.gw.logFile!, "utf8")
    .split("\n")
    .filter((l) => l.includes('"route":"/v1/chat/completions"'))
    .map((l) => (JSON.parse(l) as { affinity?: string }).affinity);
}

describe("one conversation, two equal endpoints", () => {
  test("all 20 turns land on one endpoint; the log and the metric say miss once, then hit", async () => {
    const s = await setup();
    const served: string[] = [];
    for (let n = 1; n <= 20; n++) served.push(await ask(s, turn(n)));
    const first = served[0]!;
    expect(served.filter((x) => x === first)).toHaveLength(20);
    expect(s.east.requests.length + s.west.requests.length).toBe(20);
    const metrics = await scrape(s.gw.url);
    expect(sampleOf(metrics, "gateway_cache_affinity_total", { result: "hit" })).toBe(19);
    expect(sampleOf(metrics, "gateway_cache_affinity_total", { result: "miss" })).toBe(1);
    await s.gw.close();
    expect(affinities(s)).toEqual(["miss", ...Array<string>(19).fill("hit")]);
  });

  test("a streamed turn keeps to the conversation's endpoint too", async () => {
    const s = await setup();
    const first = await ask(s, turn(1));
    const res = await fetch(`${s.gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(s.key) },
      body: JSON.stringify({ model: MODEL, messages: turn(2), stream: true }),
    });
    expect(res.status).toBe(200);
    await res.text();
    expect((first === "east" ? s.east : s.west).requests.map((r) => r.body.stream === true)).toEqual([false, true]);
    await s.gw.close();
    expect(affinities(s)).toEqual(["miss", "hit"]);
  });

  test("20 different conversations spread over both endpoints", async () => {
    const s = await setup();
    const served: string[] = [];
    for (let n = 1; n <= 20; n++) served.push(await ask(s, turn(1, `topic ${n}`)));
    // The second goes to the endpoint not yet measured; after that, the faster one.
    expect(served[1]).not.toBe(served[0]);
    expect(new Set(served).size).toBe(2);
  });

  test("another account's identical prompt follows the normal order; the first account stays", async () => {
    const s = await setup();
    const other = await s.gw.createKey({ account: "globex" });
    await s.gw.addCredits("10", "globex");
    const mine = await ask(s, turn(1));
    expect(await ask(s, turn(1), {}, other)).not.toBe(mine);
    for (let n = 2; n <= 5; n++) expect(await ask(s, turn(n))).toBe(mine);
  });

  test("the same prompt_cache_key, or the same user, keeps different prompts together", async () => {
    const s = await setup({}, { server: { compat: "openai" } });
    const byKey = await ask(s, turn(1, "ships"), { prompt_cache_key: "conv-7" });
    for (const topic of ["trains", "planes", "boats"]) expect(await ask(s, turn(1, topic), { prompt_cache_key: "conv-7" })).toBe(byKey);
    const byUser = await ask(s, turn(1, "rivers"), { user: "u-42" });
    for (const topic of ["lakes", "seas"]) expect(await ask(s, turn(1, topic), { user: "u-42" })).toBe(byUser);
  });

  test("Responses: Codex's prompt_cache_key keeps a thread's turns on one endpoint", async () => {
    const s = await setup();
    const create = async (input: string) => {
      const res = await fetch(`${s.gw.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(s.key) },
        body: JSON.stringify({ model: MODEL, input, store: false, prompt_cache_key: "thread-1" }),
      });
      const body = (await res.json()) as { output: Array<{ content: Array<{ text: string }> }> };
      expect(res.status).toBe(200);
      return body.output[0]!.content[0]!.text;
    };
    const first = await create("turn 1");
    for (let n = 2; n <= 6; n++) expect(await create(`turn ${n}`)).toBe(first);
    expect(s.east.requests.length + s.west.requests.length).toBe(6);
  });

  test("prompt_cache_key is accepted under compat strict (the default), and forwarded to OpenAI", async () => {
    const s = await setup();
    const at = await ask(s, turn(1), { prompt_cache_key: "conv-9" });
    expect((at === "east" ? s.east : s.west).requests[0]!.body.prompt_cache_key).toBe("conv-9");
  });
});

describe("health wins", () => {
  test("the endpoint failing moves the conversation, and it stays moved after that endpoint recovers", async () => {
    // A fixed order: east is first for every request, so only affinity keeps a conversation on west.
    const s = await setup({ order: "fixed" });
    expect(await ask(s, turn(1))).toBe("east");
    expect(await ask(s, turn(2))).toBe("east");
    s.east.fallback = () => error(503, "overloaded");
    expect(await ask(s, turn(3))).toBe("west");
    s.east.fallback = () => completion("from east");
    // east answers again: another conversation is served there, and east is healthy.
    expect(await ask(s, turn(1, "another topic"))).toBe("east");
    for (let n = 4; n <= 8; n++) expect(await ask(s, turn(n))).toBe("west");
    await s.gw.close();
    expect(affinities(s)).toEqual(["miss", "hit", "miss", "miss", "hit", "hit", "hit", "hit", "hit"]);
  });

  test("an open circuit on the conversation's endpoint is skipped; after it closed the conversation stays moved", async () => {
    const s = await setup({ order: "fixed" }, { health: { failureThreshold: 2, cooldown: 300 } });
    expect(await ask(s, turn(1))).toBe("east");
    s.east.fallback = () => error(503, "overloaded");
    // Two failures open east's circuit; each request still answers from west.
    for (let i = 0; i < 2; i++) expect(await ask(s, turn(1, `outage ${i}`))).toBe("west");
    const tried = s.east.requests.length;
    expect(await ask(s, turn(2))).toBe("west");
    expect(s.east.requests.length, "an open circuit is not tried").toBe(tried);
    s.east.fallback = () => completion("from east");
    await sleep(350);
    // Half-open: another conversation's probe closes east's circuit.
    expect(await ask(s, turn(1, "probe"))).toBe("east");
    for (let n = 3; n <= 5; n++) expect(await ask(s, turn(n))).toBe("west");
  });
});
