/**
 * Provider preferences (docs/routing.md): `provider: {order, only, ignore, sort, max_price,
 * allow_fallbacks}` per request and per model in the config, over `acme/both`, served by two
 * OpenAI-format fakes at their own prices (alpha $5 / $5, beta $1 / $1 per 1M), each charged
 * at its own price when it serves.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { error } from "./helpers/openai-wire.js";
import { balanceOf, chat, funded, ledgerOf, startTwoModels, type TwoModels } from "./helpers/two-models.js";

let s: TwoModels;
beforeAll(async () => {
  s = await startTwoModels();
});
afterAll(() => s.close());
beforeEach(() => {
  s.alpha.requests.length = 0;
  s.beta.requests.length = 0;
});

const ALPHA_COST = 85_000; // 12 × $5 + 5 × $5 per 1M, in nano-USD
const BETA_COST = 17_000; // 12 × $1 + 5 × $1

/** Beta answers 503 to every request while `run` runs (every round of failover sees it fail). */
async function whileBetaFails<T>(run: () => Promise<T>): Promise<T> {
  const normal = s.beta.fallback;
  s.beta.fallback = () => error(503);
  try {
    return await run();
  } finally {
    s.beta.fallback = normal;
  }
}

async function served(account: string, provider: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) {
  const key = await funded(s, account);
  const res = await chat(s, key, { model: "acme/both", ...(provider ? { provider } : {}), ...extra });
  expect(res.status).toBe(200);
  const [row] = await ledgerOf(s, account);
  expect(res.headers.get("x-gateway-cost")).toBe(String(row!.cost / 1e9));
  return row!;
}

describe("per request", () => {
  test("without preferences the listed order serves, at that endpoint's own price", async () => {
    expect(await served("pp-none", undefined)).toMatchObject({ provider: "alpha", cost: ALPHA_COST });
    expect(await balanceOf(s, "pp-none")).toBe(1_000_000_000 - ALPHA_COST);
  });

  test("order: the named provider first", async () => {
    expect(await served("pp-order", { order: ["beta"] })).toMatchObject({ provider: "beta", cost: BETA_COST });
    expect(s.alpha.requests).toHaveLength(0);
    expect(s.beta.requests[0]!.body).not.toHaveProperty("provider");
  });

  test("order with fallbacks allowed: the next endpoint when the first fails", async () => {
    s.beta.queue(error(503));
    expect(await served("pp-order-fb", { order: ["beta", "alpha"] })).toMatchObject({ provider: "alpha", cost: ALPHA_COST });
  });

  test("only: no other endpoint is tried, even when it fails", async () => {
    const key = await funded(s, "pp-only");
    const res = await whileBetaFails(() => chat(s, key, { model: "acme/both", provider: { only: ["beta"] } }));
    expect(res.status).toBe(503);
    expect(s.alpha.requests).toHaveLength(0);
    expect(await balanceOf(s, "pp-only")).toBe(1_000_000_000);
  });

  test("ignore: the ignored provider is never asked", async () => {
    expect(await served("pp-ignore", { ignore: ["alpha"] })).toMatchObject({ provider: "beta", cost: BETA_COST });
    expect(s.alpha.requests).toHaveLength(0);
  });

  test("sort: price puts the cheaper endpoint first", async () => {
    expect(await served("pp-price", { sort: "price" })).toMatchObject({ provider: "beta", cost: BETA_COST });
  });

  test("max_price leaves out the endpoints above it", async () => {
    expect(await served("pp-max", { max_price: { prompt: 2, completion: "2" } })).toMatchObject({ provider: "beta", cost: BETA_COST });
    expect(s.alpha.requests).toHaveLength(0);
  });

  test("allow_fallbacks: false: the first preferred endpoint only; its failure is a 503", async () => {
    const key = await funded(s, "pp-nofb");
    const res = await whileBetaFails(() => chat(s, key, { model: "acme/both", provider: { order: ["beta"], allow_fallbacks: false } }));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("upstream_unavailable");
    expect(s.alpha.requests).toHaveLength(0);
  });

  test("sort: latency puts the faster endpoint first", async () => {
    const slow = s.alpha.fallback;
    s.alpha.fallback = (req) => ({ ...(slow(req) as { json: unknown }), delayMs: 150 });
    try {
      await served("pp-lat-a", { only: ["alpha"] }); // measured: alpha answers in 150 ms or more
      await served("pp-lat-b", { only: ["beta"] });
      s.alpha.requests.length = 0;
      expect(await served("pp-lat", { sort: "latency" })).toMatchObject({ provider: "beta" });
      expect(s.alpha.requests).toHaveLength(0);
    } finally {
      s.alpha.fallback = slow;
    }
  });
});

describe("refused before any hold", () => {
  const refusals: Array<[string, Record<string, unknown>, string]> = [
    ["only names no endpoint of the model", { only: ["gamma"] }, "provider.only"],
    ["ignore leaves none", { ignore: ["alpha", "beta"] }, "provider.ignore"],
    ["max_price no endpoint meets", { max_price: { prompt: "0.5" } }, "provider.max_price"],
  ];
  test.each(refusals)("%s: 400 naming the field, balance unchanged, no upstream call", async (_name, provider, field) => {
    const account = `pp-400-${field}`;
    const key = await funded(s, account);
    const res = await chat(s, key, { model: "acme/both", provider });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "no_endpoint_matches" });
    expect(body.error.message.startsWith(`${field}: `)).toBe(true);
    expect(await balanceOf(s, account)).toBe(1_000_000_000);
    expect(await ledgerOf(s, account)).toEqual([]);
    expect(s.alpha.requests.length + s.beta.requests.length).toBe(0);
  });

  test("a bad preference is a 400 naming the field", async () => {
    const key = await funded(s, "pp-bad");
    const res = await chat(s, key, { model: "acme/both", provider: { sort: "cheapest" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^provider\.sort: /);
  });
});

describe("per model in the config", () => {
  let c: TwoModels;
  beforeAll(async () => {
    c = await startTwoModels({
      models: [
        {
          id: "acme/both",
          pricing: { prompt: "2", completion: "2" },
          provider: { order: ["beta"] },
          endpoints: [
            { provider: "alpha", model: "both-a", pricing: { prompt: "5", completion: "5" } },
            { provider: "beta", model: "both-b", pricing: { prompt: "1", completion: "1" } },
          ],
        },
      ],
      fallbacks: {},
    });
  });
  afterAll(() => c.close());

  test("the model's preferences apply; a request's own win field by field", async () => {
    const key = await funded(c, "pp-config");
    await chat(c, key, { model: "acme/both" });
    expect(c.beta.requests).toHaveLength(1);
    await chat(c, key, { model: "acme/both", provider: { order: ["alpha"] } });
    expect(c.alpha.requests).toHaveLength(1);
    expect((await ledgerOf(c, "pp-config")).map((r) => [r.provider, r.cost])).toEqual([
      ["beta", BETA_COST],
      ["alpha", ALPHA_COST],
    ]);
  });
});
