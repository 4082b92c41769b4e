/**
 * The exact response cache (docs/cache.md) on a real gateway over HTTP with a fake OpenAI
 * upstream that records what reached it: hit, miss and bypass, the key's opt-in and the
 * temperature and `n` rules, `Cache-Control: no-cache` / `no-store`, TTL expiry, never across
 * accounts, a hit replayed as a stream the `openai` client reads, and the hit's ledger row
 * (cost 0, usage source `cache_hit`, its list cost what it saved), summed on the dashboard's usage API.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { completion, stream } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";
import { call, signUp } from "./helpers/dashboard.js";

let fake: FakeUpstream;
let gw: TestGateway;
let key: string;
let loose: string;
let plain: string;
let other: string;
let n = 0;

beforeAll(async () => {
  fake = await startFakeUpstream(() => completion(`answer ${++n}`, { prompt_tokens: 1000, completion_tokens: 500 }));
  gw = await startGateway(openaiConfig(fake.url, { cache: { enabled: true, ttl: 1 } }));
  key = await gw.createKey({ cache: "on" });
  loose = await gw.createKey({ cache: "nondeterministic" });
  plain = await gw.createKey();
  other = await gw.createKey({ account: "other", cache: "on" });
  await gw.addCredits("10");
  await gw.addCredits("10", "other");
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

let unique = 0;
/** A body no earlier test sent: its first request is a miss. */
const fresh = (extra: Record<string, unknown> = {}) => ({
  model: "openai/gpt-4o-mini",
  temperature: 0,
  messages: [{ role: "user", content: `question ${++unique}` }],
  ...extra,
});

async function post(k: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${k}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    cache: res.headers.get("x-gateway-cache"),
    cost: res.headers.get("x-gateway-cost"),
    id: res.headers.get("x-request-id"),
    json: (await res.json()) as any,
  };
}

test("the same request twice: a miss that went upstream, then a hit that did not, with the same answer", async () => {
  const body = fresh();
  const first = await post(key, body);
  const second = await post(key, { ...body, messages: body.messages }); // same content, new object
  expect([first.status, first.cache, second.status, second.cache]).toEqual([200, "miss", 200, "hit"]);
  expect([first.cost, second.cost]).toEqual(["0.00045", "0"]); // 1000 × $0.15/1M + 500 × $0.60/1M, then nothing
  expect(fake.requests).toHaveLength(1);
  expect(second.json.choices[0].message.content).toBe(first.json.choices[0].message.content);
  expect(second.json.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 500 });
  expect(second.json.id).not.toBe(first.json.id);
});

test("key order in the body does not matter; any other difference does", async () => {
  const body = fresh();
  await post(key, body);
  const reordered = Object.fromEntries(Object.entries(body).reverse());
  expect((await post(key, reordered)).cache).toBe("hit");
  expect((await post(key, { ...body, max_tokens: 7 })).cache).toBe("miss");
  expect((await post(key, { ...body, temperature: 0, top_p: 0.5 })).cache).toBe("miss");
  expect(fake.requests).toHaveLength(3);
});

test("a hit is a ledger row at cost 0 marked cache_hit whose list cost is what it saved", async () => {
  const body = fresh();
  const miss = await post(key, body);
  const hit = await post(key, body);
  // The same bytes again: answered through the memo of repeats (cache/request-memo.ts), exactly like the first hit.
  const repeat = await post(key, body);
  expect([repeat.cache, repeat.cost, repeat.json.choices, repeat.json.usage]).toEqual(["hit", "0", hit.json.choices, hit.json.usage]);
  expect(fake.requests).toHaveLength(1);
  const found = await rows<{ request_id: string; cost: number; list_cost: number; usage_source: string; provider: string | null; model: string }>(
    gw.db,
    "SELECT request_id, cost, list_cost, usage_source, provider, model FROM ledger WHERE request_id IN (?, ?, ?) ORDER BY id",
    miss.id,
    hit.id,
    repeat.id,
  );
  // 1000 prompt tokens at $0.15/1M + 500 completion at $0.60/1M = 150,000 + 300,000 nano-USD.
  const model = "openai/gpt-4o-mini";
  expect(found).toEqual([
    { request_id: miss.id, cost: 450_000, list_cost: 450_000, usage_source: "provider", provider: "openai", model },
    { request_id: hit.id, cost: 0, list_cost: 450_000, usage_source: "cache_hit", provider: null, model },
    { request_id: repeat.id, cost: 0, list_cost: 450_000, usage_source: "cache_hit", provider: null, model },
  ]);
});

describe("who and what may use the cache", () => {
  test("never across accounts: the same request from another account is a miss and goes upstream", async () => {
    const body = fresh();
    await post(key, body);
    const theirs = await post(other, body);
    expect(theirs.cache).toBe("miss");
    expect(fake.requests).toHaveLength(2);
    expect((await post(other, body)).cache).toBe("hit");
  });

  test("a key switched off after its hits bypasses the cache, even for bytes it was answered from before", async () => {
    const mine = await gw.createKey({ cache: "on", name: "switched-off" });
    const body = fresh();
    await post(mine, body);
    expect([(await post(mine, body)).cache, (await post(mine, body)).cache]).toEqual(["hit", "hit"]);
    // As the dashboard does: change the key, then drop the gateway's cached keys.
    await gw.store.updateKey((await gw.store.findKey("switched-off"))!.id, { cache: "off" }, Date.now());
    gw.server.gateway.auth.invalidate();
    expect((await post(mine, body)).cache).toBe("bypass");
    expect(fake.requests).toHaveLength(2);
  });

  test("a key without --cache bypasses it: every request goes upstream", async () => {
    const body = fresh();
    expect((await post(plain, body)).cache).toBe("bypass");
    expect((await post(plain, body)).cache).toBe("bypass");
    expect(fake.requests).toHaveLength(2);
  });

  test("n > 1 is never cached, not even for a key with --cache-nondeterministic", async () => {
    const body = fresh({ n: 2 });
    fake.queue(completion("x"), completion("y"));
    expect((await post(loose, body)).cache).toBe("bypass");
    expect((await post(loose, body)).cache).toBe("bypass");
    expect(fake.requests).toHaveLength(2);
  });

  test("a non-zero or absent temperature bypasses for --cache and is cached for --cache-nondeterministic", async () => {
    const warm = fresh({ temperature: 0.7 });
    const absent = fresh();
    delete (absent as Record<string, unknown>).temperature;
    expect((await post(key, warm)).cache).toBe("bypass");
    expect((await post(key, absent)).cache).toBe("bypass");
    expect((await post(loose, warm)).cache).toBe("miss");
    expect((await post(loose, warm)).cache).toBe("hit");
    expect((await post(loose, absent)).cache).toBe("miss");
    expect((await post(loose, absent)).cache).toBe("hit");
    expect(fake.requests).toHaveLength(4);
  });

  test("Cache-Control: no-cache does not read but stores; no-store does neither", async () => {
    const body = fresh();
    expect((await post(key, body)).cache).toBe("miss");
    const refreshed = await post(key, body, { "cache-control": "no-cache" });
    expect(refreshed.cache).toBe("miss");
    expect(fake.requests).toHaveLength(2);
    // What no-cache fetched replaced what was kept.
    expect((await post(key, body)).json.choices[0].message.content).toBe(refreshed.json.choices[0].message.content);

    const kept = fresh();
    expect((await post(key, kept, { "cache-control": "no-store" })).cache).toBe("bypass");
    expect((await post(key, kept)).cache).toBe("miss"); // nothing was stored
    expect((await post(key, kept, { "cache-control": "no-store" })).cache).toBe("bypass"); // nor read
    expect(fake.requests).toHaveLength(5);
  });
});

test("an answer expires ttl seconds after it was stored", async () => {
  const body = fresh();
  await post(key, body);
  expect((await post(key, body)).cache).toBe("hit");
  await new Promise((r) => setTimeout(r, 1_100));
  expect((await post(key, body)).cache).toBe("miss");
  expect(fake.requests).toHaveLength(2);
});

describe("streams", () => {
  test("a hit asked with stream: true is replayed as chunks the openai client reads as a normal stream", async () => {
    const body = fresh();
    const first = await post(key, body);
    const client = gw.client(key);
    const { data, response } = await client.chat.completions
      .create({ model: body.model, temperature: 0, messages: body.messages as any, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(response.headers.get("x-gateway-cache")).toBe("hit");
    let text = "";
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of data) {
      for (const c of chunk.choices) ((text += c.delta.content ?? ""), (finish = c.finish_reason ?? finish));
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(first.json.choices[0].message.content);
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 });
    expect(fake.requests).toHaveLength(1);
  });

  test("the same streamed bytes three times replay the same chunks each time (the memo's kept answer is never changed)", async () => {
    const body = fresh({ stream: true, stream_options: { include_usage: true }, usage: { include: true } });
    await post(key, { ...body, stream: false });
    const replay = async () => {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.headers.get("x-gateway-cache")).toBe("hit");
      return (await res.text()).replace(/"id":"[^"]+"|"created":\d+/g, "");
    };
    const [a, b, c] = [await replay(), await replay(), await replay()];
    expect(a).toContain('"cost":"0"');
    expect([b, c]).toEqual([a, a]);
    expect(fake.requests).toHaveLength(1);
  });

  test("a streamed answer that completed is stored, and a JSON request for the same body hits it", async () => {
    const body = fresh();
    fake.queue(stream(["Hel", "lo"], { prompt_tokens: 20, completion_tokens: 2 }));
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ ...body, stream: true }),
    });
    expect(res.headers.get("x-gateway-cache")).toBe("miss");
    expect(await res.text()).toContain("[DONE]");
    await new Promise((r) => setTimeout(r, 50)); // kept as the stream ends, after its last write
    const hit = await post(key, body);
    expect(hit.cache).toBe("hit");
    expect(hit.json.choices[0].message.content).toBe("Hello");
    expect(hit.json.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 2 });
    expect(fake.requests).toHaveLength(1);
  });

  test("a stream cut short is not stored", async () => {
    const body = fresh();
    fake.queue(stream(["Hel", "lo"], undefined, { cut: true, delayMs: 20 }));
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ ...body, stream: true }),
    });
    expect(await res.text()).not.toContain("[DONE]");
    expect((await post(key, body)).cache).toBe("miss");
    expect(fake.requests).toHaveLength(2);
  });
});

test("the dashboard's usage API shows the account's cache hits and what they saved at list price", async () => {
  const alone = await gw.createKey({ account: "dash", cache: "on" });
  await gw.addCredits("1", "dash");
  const body = fresh();
  for (let i = 0; i < 3; i++) await post(alone, body);
  const { cookie } = await signUp(gw, "dash@example.com", "dash");
  const usage = (await call(gw, "GET", "/dashboard/api/usage", { cookie })).json;
  // Three requests, one upstream call: $0.00045 charged, twice that saved.
  expect(usage).toMatchObject({ requests: 3, cost: "0.00045", cache_hits: 2, cache_saved: "0.0009" });
  expect(usage.by_model).toMatchObject([{ model: "openai/gpt-4o-mini", cache_hits: 2, cache_saved: "0.0009" }]);
});
