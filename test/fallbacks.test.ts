/**
 * Fallback models (docs/routing.md): a request's `models` and the config's `fallbacks`. The
 * first model that answers serves, billed at its own price, its hold re-taken per model; a
 * stream moves on only before its first byte. Two fakes in OpenAI's wire format, one per model.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { startupWarnings } from "../src/app/startup-check.js";
import { error, stream } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";
import { onPostgres } from "./helpers/services.js";
import { answer, balanceOf, chat, events, funded, ledgerOf, startTwoModels, type TwoModels } from "./helpers/two-models.js";

let s: TwoModels;
beforeAll(async () => {
  s = await startTwoModels();
});
afterAll(() => s.close());
beforeEach(() => {
  s.alpha.requests.length = 0;
  s.beta.requests.length = 0;
});

const B_COST = 56_000; // 12 × $3 + 5 × $4 per 1M, in nano-USD
const A_COST = 22_000; // 12 × $1 + 5 × $2

describe("models: [...]", () => {
  test("the first model fails with 503: the second serves, named in the answer, billed at its own price exactly", async () => {
    const key = await funded(s, "fb-503");
    s.alpha.queue(error(503));
    const res = await chat(s, key, { model: "acme/a", models: ["acme/b"] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { model: string; choices: Array<{ message: { content: string } }> };
    expect(body.model).toBe("acme/b");
    expect(body.choices[0]!.message.content).toBe("from beta");
    expect(res.headers.get("x-gateway-cost")).toBe("0.000056");
    expect(s.alpha.requests).toHaveLength(1); // one round for a model with a fallback: no backoff
    // What beta received: its own model name, none of the gateway's fields.
    const sent = s.beta.requests[0]!.body;
    expect(sent.model).toBe("b-model");
    expect(sent).not.toHaveProperty("models");
    expect(await ledgerOf(s, "fb-503")).toEqual([{ model: "acme/b", provider: "beta", cost: B_COST, status: "ok", attempts: 2 }]);
    expect(await balanceOf(s, "fb-503")).toBe(1_000_000_000 - B_COST);
    // PostgreSQL keeps holds as rows and sums: the first model's hold is gone, not leaked.
    if (onPostgres()) {
      expect(await rows(s.gw.db, "SELECT held FROM accounts WHERE id = ?", "fb-503")).toEqual([{ held: 0 }]);
      expect(await rows(s.gw.db, "SELECT id FROM holds WHERE account = ?", "fb-503")).toEqual([]);
    }
  });

  test("the first model answers: the second is never called", async () => {
    const key = await funded(s, "fb-first");
    const res = await chat(s, key, { model: "acme/a", models: ["acme/b"] });
    expect(((await res.json()) as { model: string }).model).toBe("acme/a");
    expect(s.beta.requests).toHaveLength(0);
    expect(await ledgerOf(s, "fb-first")).toEqual([{ model: "acme/a", provider: "alpha", cost: A_COST, status: "ok", attempts: 1 }]);
  });

  test("`model` may be left out; duplicates are tried once; an unknown model in the list is skipped", async () => {
    const key = await funded(s, "fb-list");
    s.alpha.queue(error(503));
    const res = await chat(s, key, { models: ["acme/a", "acme/nope", "acme/a", "acme/b"] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe("acme/b");
    expect(s.alpha.requests).toHaveLength(1);
  });

  test("no model in the list exists: the first one's 404, nothing held or charged", async () => {
    const key = await funded(s, "fb-none");
    const res = await chat(s, key, { models: ["acme/nope", "acme/gone"] });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("model_not_found");
    expect(await balanceOf(s, "fb-none")).toBe(1_000_000_000);
    expect(await ledgerOf(s, "fb-none")).toEqual([]);
  });

  test("every model fails: 503, one error row with every attempt, nothing charged", async () => {
    const key = await funded(s, "fb-all");
    s.alpha.queue(error(503));
    s.beta.fallback = () => error(503);
    try {
      const res = await chat(s, key, { model: "acme/a", models: ["acme/b"] });
      expect(res.status).toBe(503);
    } finally {
      s.beta.fallback = answer("from beta");
    }
    const [row] = await ledgerOf(s, "fb-all");
    expect(row).toMatchObject({ cost: 0, status: "error" });
    expect(row!.attempts).toBeGreaterThanOrEqual(2);
    expect(await balanceOf(s, "fb-all")).toBe(1_000_000_000);
  });

  test("a bad `models` is a 400 naming the field", async () => {
    const key = await funded(s, "fb-bad");
    const res = await chat(s, key, { model: "acme/a", models: "acme/b" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^models: /);
  });
});

describe("streams", () => {
  test("the first model fails before the first byte: the next model streams", async () => {
    const key = await funded(s, "fb-stream");
    s.alpha.queue(error(503));
    const res = await chat(s, key, { model: "acme/a", models: ["acme/b"], stream: true });
    expect(res.status).toBe(200);
    const all = (await events(res)) as Array<{ model?: string; choices?: Array<{ delta?: { content?: string } }> } | string>;
    expect(all.at(-1)).toBe("[DONE]");
    const chunks = all.filter((e): e is { model: string; choices: Array<{ delta?: { content?: string } }> } => typeof e === "object");
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("from beta");
    expect(chunks.every((c) => c.model === "acme/b")).toBe(true);
    await expect.poll(() => ledgerOf(s, "fb-stream")).toEqual([{ model: "acme/b", provider: "beta", cost: B_COST, status: "ok", attempts: 2 }]);
  });

  test("the stream fails after its first byte: an error event, no switch to the next model", async () => {
    const key = await funded(s, "fb-cut");
    s.alpha.queue(stream(["from ", "alpha"], undefined, { cut: true, delayMs: 30 }));
    const res = await chat(s, key, { model: "acme/a", models: ["acme/b"], stream: true });
    expect(res.status).toBe(200);
    const all = await events(res);
    expect(all).not.toContain("[DONE]");
    expect(all.at(-1)).toMatchObject({ error: expect.anything() });
    expect(s.beta.requests).toHaveLength(0);
  });
});

describe("config fallbacks", () => {
  test("a model with `fallbacks` moves to them as a request's `models` would", async () => {
    const key = await funded(s, "fb-config");
    s.alpha.queue(error(503));
    const res = await chat(s, key, { model: "acme/f" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe("acme/b");
    expect(await ledgerOf(s, "fb-config")).toEqual([{ model: "acme/b", provider: "beta", cost: B_COST, status: "ok", attempts: 2 }]);
  });

  test("serve warns at start about a `fallbacks` entry naming a model the catalog does not know, and only about it", async () => {
    const gw = s.gw.server.gateway;
    const fallbacks = gw.config.fallbacks;
    expect(startupWarnings(gw, {}).filter((l) => l.includes("fallbacks"))).toEqual([]);
    gw.config.fallbacks = { ...fallbacks, "acme/a": ["acme/b", "acme/nope"] };
    try {
      expect(startupWarnings(gw, {}).filter((l) => l.includes("fallbacks"))).toEqual([
        "warning: fallbacks.acme/a: 'acme/nope' is not a model of the catalog (gateway models list): requests skip it",
      ]);
    } finally {
      gw.config.fallbacks = fallbacks;
    }
  });

  test("a model with `fallbacks` that answers keeps the request", async () => {
    const key = await funded(s, "fb-config-ok");
    const res = await chat(s, key, { model: "acme/f" });
    expect(((await res.json()) as { model: string }).model).toBe("acme/f");
    expect(s.beta.requests).toHaveLength(0);
  });
});

describe("on Responses and Messages", () => {
  const post = (path: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${s.gw.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers },
      body: JSON.stringify(body),
    });

  test("POST /v1/responses with `models`: the next model serves and names itself", async () => {
    const key = await funded(s, "fb-responses");
    s.alpha.queue(error(503));
    const res = await post("/v1/responses", key, { model: "acme/a", models: ["acme/b"], input: "hi" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe("acme/b");
    expect(res.headers.get("x-gateway-cost")).toBe("0.000056");
    expect(s.beta.requests[0]!.body).not.toHaveProperty("models");
  });

  test("POST /v1/messages with `models`: the next model serves and names itself", async () => {
    const key = await funded(s, "fb-messages");
    s.alpha.queue(error(503));
    const res = await post(
      "/v1/messages",
      key,
      { models: ["acme/a", "acme/b"], max_tokens: 100, messages: [{ role: "user", content: "hi" }] },
      { "anthropic-version": "2023-06-01" },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe("acme/b");
    expect(await ledgerOf(s, "fb-messages")).toEqual([{ model: "acme/b", provider: "beta", cost: B_COST, status: "ok", attempts: 2 }]);
  });
});
