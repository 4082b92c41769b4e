/**
 * Models a provider lists that no catalog prices (docs/billing.md, "Model prices"), driven as an
 * operator and a client would: the built CLI against a running gateway's database, HTTP on
 * loopback, upstreams played by local fakes that list the models coding agents ask for.
 * - `models sync` keeps every model a provider lists; `models list` shows the unpriced ones as such.
 * - A platform-key request for one is refused with 404 model_not_found that names the reason and
 *   the fixes, for the bare and the full id, on chat and on Anthropic's Messages route: never a
 *   did-you-mean that fails the same way. With the account's own key (BYOK) it is served.
 * - `gateway models price` sets a price (exact decimals, audited), live in the running server
 *   within 5 s, billed exactly; `--remove` undoes it; a config `models:` entry with `pricing` and
 *   no endpoints prices a synced model by id and wins over `models price`.
 * Runs on SQLite and (the `postgres` project) on PostgreSQL, where the change reaches the server
 * through LISTEN/NOTIFY.
 */
import { userInfo } from "node:os";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { assertBuilt, gateway, serve, tempDir, type CliResult } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";

const SECRET = "test-secret"; // the gateway helper's GATEWAY_SECRET: BYOK keys sealed by the CLI open in the server
const OPENAI_KEY = "sk-platform-prices-0000";

/** OpenAI lists gpt-5.5 (no catalog prices it) and answers chats with 1,000 prompt tokens (200 cached) and 50 completion tokens. */
function openai(req: Recorded): Reply {
  if (req.method === "GET")
    return { json: { object: "list", data: ["gpt-5.5", "gpt-4o-mini"].map((id) => ({ id, object: "model", created: 1, owned_by: "system" })) } };
  const reply = completion("priced at last", { prompt_tokens: 1000, completion_tokens: 50 });
  const json = reply as { json: { usage: { prompt_tokens_details: { cached_tokens: number } } } };
  json.json.usage.prompt_tokens_details.cached_tokens = 200;
  return reply;
}

/** Anthropic lists claude-opus-5-5, Claude Code's default model. */
function anthropic(req: Recorded): Reply {
  if (req.method === "GET") {
    const data = [
      {
        type: "model",
        id: "claude-opus-5-5",
        display_name: "Claude Opus 5.5",
        created_at: "2026-09-01T00:00:00Z",
        max_input_tokens: 1_000_000,
        max_tokens: 128_000,
      },
    ];
    return { json: { data, has_more: false, first_id: "claude-opus-5-5", last_id: "claude-opus-5-5" } };
  }
  return { status: 500, json: { type: "error", error: { type: "api_error", message: "not expected in this test" } } };
}

let oa: FakeUpstream;
let an: FakeUpstream;
let gw: TestGateway;
let configFile: string;
let platformKey: string;
const cli = (...args: string[]): Promise<CliResult> => gateway(["--config", configFile, "--db", gw.db, ...args], { env: { GATEWAY_SECRET: SECRET } });

function config(extra: Record<string, unknown> = {}) {
  return {
    server: { compat: "openai" },
    providers: { openai: { baseUrl: `${oa.url}/v1`, apiKey: OPENAI_KEY }, anthropic: { baseUrl: an.url, apiKey: "sk-ant-platform-prices-0000" } },
    ...extra,
  };
}

beforeAll(async () => {
  assertBuilt();
  oa = await startFakeUpstream(openai);
  an = await startFakeUpstream(anthropic);
  gw = await startGateway(config());
  configFile = join(gw.dir, "gateway.config.yaml");
  writeFileSync(configFile, stringify({ ...config(), database: gw.db }));
  platformKey = await gw.createKey();
  await gw.addCredits("10");
  const sync = await cli("--json", "models", "sync");
  expect(sync.exitCode, sync.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await oa?.close();
  await an?.close();
});

const chat = (model: string, key = platformKey) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

describe("a model its provider lists with no price", () => {
  test("models sync keeps it; models list shows it unpriced; GET /v1/models leaves it out for the platform key", async () => {
    const list = await cli("--json", "models", "list");
    const row = (list.json as Array<{ id: string }>).find((r) => r.id === "openai/gpt-5.5");
    expect(row).toEqual({
      id: "openai/gpt-5.5",
      owned_by: "openai",
      pricing: { prompt: null, completion: null },
      context_length: null,
      providers: ["openai"],
      price_source: null,
      unpriced: true,
    });
    expect((await cli("models", "list")).stdout).toMatch(/openai\/gpt-5\.5 +\? +\? +- +openai +unpriced: BYOK only/);
    const models = (await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${platformKey}` } })).json()) as {
      data: Array<{ id: string }>;
    };
    expect(models.data.map((m) => m.id)).not.toContain("openai/gpt-5.5");
    expect(models.data.map((m) => m.id)).toContain("openai/gpt-4o-mini");
  });

  test("on the platform key: 404 model_not_found naming the reason and the fixes, bare or full id, chat or Messages; no upstream call", async () => {
    const posts = oa.requests.filter((r) => r.method === "POST").length;
    for (const model of ["gpt-5.5", "openai/gpt-5.5"]) {
      const res = await chat(model);
      expect(res.status).toBe(404);
      const err = await errorOf(res);
      expect(err.code).toBe("model_not_found");
      expect(err.message).toContain("is listed by provider openai but has no price");
      expect(err.message).toContain("gateway models price openai/gpt-5.5 --prompt <USD per 1M> --completion <USD per 1M>");
      expect(err.message).toContain("a pricing block for it under models:");
      expect(err.message).toContain("gateway models sync --prices <file|url>");
      expect(err.message).toContain("gateway byok set");
      expect(err.message).not.toContain("Did you mean");
    }
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": platformKey, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-opus-5-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { type: string; error: { code: string; message: string } };
    expect(body.type).toBe("error");
    expect(body.error.code).toBe("model_not_found");
    expect(body.error.message).toContain("'claude-opus-5-5' (anthropic/claude-opus-5-5) is listed by provider anthropic but has no price");
    expect(body.error.message).toContain("gateway models price anthropic/claude-opus-5-5");
    // GET /v1/models/{id} says the same.
    const one = await fetch(`${gw.url}/v1/models/openai/gpt-5.5`, { headers: { authorization: `Bearer ${platformKey}` } });
    expect(one.status).toBe(404);
    expect((await errorOf(one)).message).toContain("is listed by provider openai but has no price");
    expect(oa.requests.filter((r) => r.method === "POST").length).toBe(posts);
    expect(an.requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  test("with the account's own key it is served and never charged; its ledger row's list cost is 0 (no price known)", async () => {
    const own = await cli("byok", "set", "openai", "--key", "sk-own-openai-key-7777", "--account", "default");
    expect(own.exitCode, own.stderr).toBe(0);
    try {
      await expect.poll(async () => (await chat("gpt-5.5")).status, { timeout: 5_000 }).toBe(200);
      const last = oa.requests.filter((r) => r.method === "POST").at(-1)!;
      expect(last.headers.authorization).toBe("Bearer sk-own-openai-key-7777");
      const [row] = await rows<{ byok: number; cost: number; list_cost: number }>(
        gw.db,
        "SELECT byok, cost, list_cost FROM ledger WHERE model = 'openai/gpt-5.5' ORDER BY id DESC LIMIT 1",
      );
      expect(row).toEqual({ byok: 1, cost: 0, list_cost: 0 });
    } finally {
      expect((await cli("byok", "remove", "openai", "--account", "default")).exitCode).toBe(0);
    }
    await expect.poll(async () => (await chat("gpt-5.5")).status, { timeout: 5_000 }).toBe(404);
  });
});

describe("gateway models price", () => {
  test("sets an exact price, audited; the running server serves the model at it within 5 s, billed exactly; --remove undoes it", async () => {
    const set = await cli("--json", "models", "price", "openai/gpt-5.5", "--prompt", "5", "--completion", "30", "--cache-read", "0.5");
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.json).toEqual({ id: "openai/gpt-5.5", pricing: { prompt: "5", completion: "30", cache_read: "0.5", cache_write: null }, effective: true });
    const t0 = Date.now();
    await expect.poll(async () => (await chat("gpt-5.5")).status, { timeout: 5_000, interval: 100 }).toBe(200);
    expect(Date.now() - t0).toBeLessThan(5_000);
    // 800 uncached × 5,000 + 200 cached × 500 + 50 × 30,000 nano-USD.
    const [row] = await rows<{ cost: number; byok: number }>(gw.db, "SELECT cost, byok FROM ledger WHERE model = 'openai/gpt-5.5' ORDER BY id DESC LIMIT 1");
    expect(row).toEqual({ cost: 800 * 5_000 + 200 * 500 + 50 * 30_000, byok: 0 });
    const listed = (await cli("--json", "models", "list")).json as Array<{ id: string; pricing: unknown; price_source: string; unpriced: boolean }>;
    expect(listed.find((r) => r.id === "openai/gpt-5.5")).toMatchObject({
      pricing: { prompt: "5", completion: "30" },
      price_source: "operator",
      unpriced: false,
    });
    const [audit] = (await cli("--json", "audit")).json.filter((r: { action: string }) => r.action === "model.price");
    expect(audit).toMatchObject({
      actor: `cli:${userInfo().username}`,
      target: "openai/gpt-5.5",
      before: null,
      after: { prompt: "5", completion: "30", cache_read: "0.5", cache_write: null },
    });

    const removed = await cli("--json", "models", "price", "openai/gpt-5.5", "--remove");
    expect(removed.json).toEqual({ id: "openai/gpt-5.5", removed: true });
    await expect.poll(async () => (await chat("gpt-5.5")).status, { timeout: 5_000 }).toBe(404);
    const again = await cli("models", "price", "openai/gpt-5.5", "--remove");
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("has no price set with gateway models price");
  });

  test("bad usage exits 2 (not a decimal, finer than 1e-9 USD, --remove with prices); an id not in the catalog exits 1 with a did-you-mean", async () => {
    for (const args of [
      ["--prompt", "abc", "--completion", "1"],
      ["--prompt", "1", "--completion", "0.0000000001"],
      ["--prompt", "-1", "--completion", "1"],
      ["--remove", "--prompt", "1"],
      ["--prompt", "1"],
    ]) {
      const r = await cli("models", "price", "openai/gpt-5.5", ...args);
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    }
    const bare = await cli("models", "price", "gpt-5.5", "--prompt", "5", "--completion", "30");
    expect(bare.exitCode).toBe(1);
    expect(bare.stderr).toBe("error: 'gpt-5.5' is not a model of the catalog (did you mean 'openai/gpt-5.5'?)");
    const unknown = await cli("models", "price", "openai/gpt-9", "--prompt", "5", "--completion", "30");
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain("'openai/gpt-9' is not a model of the catalog");
    expect(await gw.store.modelPrices()).toEqual([]);
  });

  test("a config `models:` entry with pricing and no endpoints prices the synced model by id, and wins over models price", async () => {
    const models = [{ id: "openai/gpt-5.5", pricing: { prompt: "6", completion: "36" } }];
    const second = await startGateway(config({ models }));
    const priced = join(second.dir, "priced.config.yaml");
    writeFileSync(priced, stringify({ ...config({ models }), database: second.db }));
    const run = (...args: string[]) => gateway(["--config", priced, "--db", second.db, ...args], { env: { GATEWAY_SECRET: SECRET } });
    try {
      expect((await run("models", "sync")).exitCode).toBe(0);
      const set = await run("models", "price", "openai/gpt-5.5", "--prompt", "5", "--completion", "30");
      expect(set.exitCode, set.stderr).toBe(0);
      expect(set.stdout).toContain("note: the config's models: entry for openai/gpt-5.5 sets its pricing, which wins over this one");
      const key = await second.createKey();
      await second.addCredits("1");
      const send = () =>
        fetch(`${second.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-5.5", messages: [{ role: "user", content: "hi" }] }),
        });
      await expect.poll(async () => (await send()).status, { timeout: 5_000 }).toBe(200);
      // The synced model's endpoint, at the config's price (no cache price: cached tokens at the prompt price).
      expect(oa.requests.filter((r) => r.method === "POST").at(-1)!.body.model).toBe("gpt-5.5");
      const [row] = await rows<{ cost: number }>(second.db, "SELECT cost FROM ledger WHERE model = 'openai/gpt-5.5' ORDER BY id DESC LIMIT 1");
      expect(row).toEqual({ cost: 1000 * 6_000 + 50 * 36_000 });
      const listed = (await run("--json", "models", "list")).json as Array<{ id: string; pricing: unknown; price_source: string }>;
      expect(listed.find((r) => r.id === "openai/gpt-5.5")).toMatchObject({ pricing: { prompt: "6", completion: "36" }, price_source: "config" });
      // A config price over a bundled one brings its own cache prices: none here, so cached tokens bill at its prompt price.
      const mini = await startGateway(config({ models: [{ id: "openai/gpt-4o-mini", pricing: { prompt: "1", completion: "2" } }] }));
      try {
        const k = await mini.createKey();
        await mini.addCredits("1");
        const res = await fetch(`${mini.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${k}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
        });
        expect(res.status).toBe(200);
        expect(await rows(mini.db, "SELECT cost FROM ledger")).toEqual([{ cost: 1000 * 1_000 + 50 * 2_000 }]);
      } finally {
        await mini.close();
      }
    } finally {
      await second.close();
    }
  });
});

describe("serve at start", () => {
  test("says so, one line each, when an endpoint-less models: entry or an alias names no catalog model", async () => {
    const dir = tempDir();
    const cfg = config({
      models: [{ id: "openai/gpt-9", pricing: { prompt: "1", completion: "2" } }],
      aliases: { "gpt-9": "openai/gpt-9", mini: "openai/gpt-4o-mini" },
    });
    writeFileSync(join(dir, "gateway.config.yaml"), stringify(cfg));
    const s = await serve([], { cwd: dir });
    s.proc.kill("SIGTERM");
    const stderr = String((await s.proc).stderr);
    expect(stderr).toContain(
      "warning: models: 'openai/gpt-9' has no endpoints and no catalog model has that id (gateway models sync lists what providers serve): requests get 404",
    );
    expect(stderr).toContain("warning: aliases.gpt-9: 'openai/gpt-9' is not a model of the catalog (gateway models list --all): requests get 404");
    expect(stderr).not.toContain("aliases.mini");
  });
});
