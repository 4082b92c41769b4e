/**
 * `gateway models sync --prices <file|url>` (docs/billing.md, "Model prices") with the two
 * community price databases in their published formats, from real excerpts
 * (test/fixtures/prices/README.md): LiteLLM's `model_prices_and_context_window.json` and
 * models.dev's `api.json`, the format told by its shape. Driven as an operator would: the built
 * CLI against a gateway's database, a running server billing what the list priced, the
 * providers' model lists played by local fakes. A URL is read from a loopback server; a slow or
 * oversized one fails with one line and changes nothing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { assertBuilt, gateway, type CliResult } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";

const FIXTURES = new URL("./fixtures/prices/", import.meta.url);
const LITELLM = new URL("litellm.model_prices_and_context_window.json", FIXTURES).pathname;
const MODELS_DEV = new URL("models.dev.api.json", FIXTURES).pathname;

/** What the fakes list: the coding agents' own model names, as each provider's model list shows them. */
function openai(req: Recorded): Reply {
  if (req.method === "GET")
    return { json: { object: "list", data: ["gpt-5.5", "gpt-4o-mini"].map((id) => ({ id, object: "model", created: 1, owned_by: "system" })) } };
  return completion("ok", { prompt_tokens: 1000, completion_tokens: 50 });
}
function anthropic(): Reply {
  const data = ["claude-opus-5-5", "claude-sonnet-4-5-20250929"].map((id) => ({ type: "model", id, display_name: id, created_at: "2026-01-01T00:00:00Z" }));
  return { json: { data, has_more: false, first_id: data[0]!.id, last_id: data[1]!.id } };
}
function google(): Reply {
  const models = ["gemini-3.1-pro-preview", "gemini-3.5-flash-lite"].map((id) => ({ name: `models/${id}`, supportedGenerationMethods: ["generateContent"] }));
  return { json: { models } };
}

let fakes: FakeUpstream[];
let gw: TestGateway;
let run: (...args: string[]) => Promise<CliResult>;

beforeAll(async () => {
  assertBuilt();
  fakes = await Promise.all([startFakeUpstream(openai), startFakeUpstream(anthropic), startFakeUpstream(google)]);
  const [oa, an, gg] = fakes;
  const cfg = {
    providers: {
      openai: { baseUrl: `${oa!.url}/v1`, apiKey: "sk-platform-lists-0000" },
      anthropic: { baseUrl: an!.url, apiKey: "sk-ant-platform-lists-0000" },
      google: { baseUrl: gg!.url, apiKey: "g-platform-lists-0000" },
    },
  };
  gw = await startGateway(cfg);
  const file = join(gw.dir, "gateway.config.yaml");
  writeFileSync(file, stringify({ ...cfg, database: gw.db }));
  run = (...args) => gateway(["--config", file, "--db", gw.db, ...args]);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  for (const f of fakes ?? []) await f.close();
});

type Listed = {
  id: string;
  pricing: { prompt: string | null; completion: string | null };
  context_length: number | null;
  price_source: string | null;
  unpriced: boolean;
};
const listed = async () => new Map(((await run("--json", "models", "list")).json as Listed[]).map((r) => [r.id, r]));

describe.each([
  { format: "litellm", file: LITELLM, entries: 17, prices: 11 },
  { format: "models.dev", file: MODELS_DEV, entries: 10, prices: 8 },
])("models sync --prices with $format's list", ({ format, file, entries, prices }) => {
  test("prices the models the providers list, adds the ones they serve unlisted, reports counts, and the server bills at the list's price", async () => {
    // Each format from the same start: nothing priced by a list yet.
    for (const p of await gw.store.modelPrices()) await gw.store.removeModelPrice(p.id, p.origin);
    const res = await run("--json", "models", "sync", "--prices", file);
    expect(res.exitCode, res.stderr).toBe(0);
    const report = res.json.prices;
    expect(report).toMatchObject({ source: file, format, entries, prices, overridden: 0 });
    // Both lists price gpt-4o-mini's cached tokens at $0.075, below the bundled $0.08: kept, and said.
    expect(report.lower_kept).toEqual([
      {
        id: "openai/gpt-4o-mini",
        pricing: { prompt: "0.15", completion: "0.6", cache_read: "0.08", cache_write: null },
        list: { prompt: "0.15", completion: "0.6", cache_read: "0.075", cache_write: null },
      },
    ]);
    // gpt-5.5 and gemini-3.1-pro-preview were listed unpriced; claude-sonnet-4-5 (undated) and claude-haiku-4-5 are added.
    const models = await listed();
    expect(models.get("openai/gpt-5.5")).toMatchObject({
      pricing: { prompt: "5", completion: "30" },
      price_source: "file",
      unpriced: false,
      context_length: 1_050_000,
    });
    expect(models.get("google/gemini-3.1-pro-preview")).toMatchObject({ pricing: { prompt: "2", completion: "12" }, price_source: "file" });
    expect(models.get("anthropic/claude-sonnet-4-5")).toMatchObject({
      pricing: { prompt: "3", completion: "15" },
      price_source: "file",
      context_length: 200_000,
    });
    expect(models.get("anthropic/claude-haiku-4-5")).toMatchObject({ pricing: { prompt: "1", completion: "5" } });
    expect(models.get("openai/gpt-4o-mini")).toMatchObject({ pricing: { prompt: "0.15", completion: "0.6" }, price_source: "bundled" });
    // Names no list knows stay unpriced and say so.
    expect(models.get("anthropic/claude-opus-5-5")).toMatchObject({ unpriced: true });
    expect(models.get("google/gemini-3.5-flash-lite")).toMatchObject({ unpriced: true });
    // A higher price above a prompt size is reported, priced at the base tier.
    expect(report.tiered).toEqual(expect.arrayContaining(["openai/gpt-5.5", "google/gemini-3.1-pro-preview"]));
    expect(report.newly_priced).toBe(2);
    expect(report.added).toBeGreaterThanOrEqual(2);
    // Nothing a provider does not serve or the gateway cannot use: no Bedrock, Vertex, Cloudflare, Cohere, image or speech model.
    const ids = [...models.keys()];
    expect(
      ids.filter((id) => /^(bedrock|cohere|cloudflare|vertex)|tts|dall-e|embedding|gpt-5\.5-pro/.test(id) && models.get(id)?.price_source === "file"),
    ).toEqual([]);

    const key = await gw.createKey({ account: `list-${format}` });
    await gw.addCredits("10", `list-${format}`); // the hold covers 128,000 output tokens at $30 per 1M
    const t0 = Date.now();
    const send = () =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-5.5", messages: [{ role: "user", content: "hi" }] }),
      });
    await expect.poll(async () => (await send()).status, { timeout: 5_000, interval: 100 }).toBe(200);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const [row] = await rows<{ cost: number }>(gw.db, "SELECT cost FROM ledger WHERE account = ?", `list-${format}`);
    expect(row).toEqual({ cost: 1000 * 5_000 + 50 * 30_000 });

    const audit = ((await run("--json", "audit")).json as Array<{ action: string; target: string; after: Record<string, unknown> }>).filter(
      (r) => r.action === "model.prices.import",
    );
    expect(audit.at(-1)).toMatchObject({ target: file, after: { format, entries, prices } });
  });
});

describe("what a list may change", () => {
  /** A LiteLLM-format list of our own, for the cases the real excerpts do not hold. */
  function ownList(name: string, entries: Record<string, { input: number; output: number; provider?: string }>): string {
    const list = Object.fromEntries(
      Object.entries(entries).map(([id, p]) => [
        id,
        { litellm_provider: p.provider ?? "openai", mode: "chat", input_cost_per_token: p.input, output_cost_per_token: p.output },
      ]),
    );
    const path = join(gw.dir, name);
    writeFileSync(path, JSON.stringify(list));
    return path;
  }

  test("never lowers a price silently: a lower list price is kept out and named, --allow-lower takes it; later syncs keep list prices", async () => {
    const lower = ownList("lower.json", { "gpt-4o-mini": { input: 1e-7, output: 5e-7 } });
    const kept = await run("--json", "models", "sync", "--prices", lower);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.json.prices.lower_kept).toEqual([
      {
        id: "openai/gpt-4o-mini",
        pricing: { prompt: "0.15", completion: "0.6", cache_read: "0.08", cache_write: null },
        list: { prompt: "0.1", completion: "0.5", cache_read: null, cache_write: null },
      },
    ]);
    expect((await listed()).get("openai/gpt-4o-mini")?.pricing).toEqual({ prompt: "0.15", completion: "0.6" });
    const human = await run("models", "sync", "--prices", lower);
    expect(human.stdout).toContain("kept openai/gpt-4o-mini at 0.15/0.6: the list says 0.1/0.5 (--allow-lower takes it)");

    const taken = await run("--json", "models", "sync", "--prices", lower, "--allow-lower");
    expect(taken.json.prices).toMatchObject({ lower_kept: [], changed: 1 });
    expect((await listed()).get("openai/gpt-4o-mini")).toMatchObject({ pricing: { prompt: "0.1", completion: "0.5" }, price_source: "file" });
    // A plain sync keeps what the list priced.
    expect((await run("models", "sync")).exitCode).toBe(0);
    expect((await listed()).get("openai/gpt-4o-mini")?.pricing).toEqual({ prompt: "0.1", completion: "0.5" });
  });

  test("gateway models price wins over a list (counted as overridden); exact to the nano-USD, a finer price is left out", async () => {
    expect((await run("models", "price", "openai/gpt-5.5", "--prompt", "4", "--completion", "20")).exitCode).toBe(0);
    const list = ownList("higher.json", { "gpt-5.5": { input: 6e-6, output: 3.1e-5 }, "gpt-4o-mini": { input: 1.23456789e-13, output: 1e-6 } });
    const res = await run("--json", "models", "sync", "--prices", list);
    expect(res.json.prices).toMatchObject({ entries: 2, prices: 1, overridden: 1 });
    expect((await listed()).get("openai/gpt-5.5")).toMatchObject({ pricing: { prompt: "4", completion: "20" }, price_source: "operator" });
    await run("models", "price", "openai/gpt-5.5", "--remove");
    expect((await listed()).get("openai/gpt-5.5")).toMatchObject({ pricing: { prompt: "6", completion: "31" }, price_source: "file" });
  });

  test("a file that is not a price list, or not JSON, or missing: exit 1 with one line, the catalog unchanged", async () => {
    const before = await gw.store.catalog();
    const notList = join(gw.dir, "not-a-list.json");
    writeFileSync(notList, JSON.stringify({ name: "llm-gateway", version: "1.0.0" }));
    const notJson = join(gw.dir, "not-json.json");
    writeFileSync(notJson, "{ nope");
    for (const [file, message] of [
      [notList, "not a price list: expected LiteLLM's model_prices_and_context_window.json or models.dev's api.json"],
      [notJson, "is not JSON"],
      [join(gw.dir, "missing.json"), "cannot read"],
    ] as const) {
      const r = await run("models", "sync", "--prices", file);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(await gw.store.catalog()).toEqual(before);
  });
});

describe("--prices <url>", () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    const body = readFileSync(LITELLM);
    server = createServer((req, res) => {
      seen.push(req.url ?? "");
      if (req.url?.startsWith("/slow")) return void res.writeHead(200, { "content-type": "application/json" }); // headers, then nothing
      if (req.url?.startsWith("/huge")) {
        res.writeHead(200, { "content-type": "application/json" });
        const mib = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const more = () => {
          while (sent < 40 && res.write(mib)) sent++;
          if (sent < 40) res.once("drain", more);
          else res.end();
        };
        return more();
      }
      if (req.url?.startsWith("/missing")) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));

  test("reads the list from a URL; the query (a token, say) is never shown or recorded", async () => {
    const res = await run("--json", "models", "sync", "--prices", `${base}/model_prices_and_context_window.json?token=s3cr3t-list-token`);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.json.prices).toMatchObject({ source: `${base}/model_prices_and_context_window.json`, format: "litellm", entries: 17 });
    expect(seen.at(-1)).toBe("/model_prices_and_context_window.json?token=s3cr3t-list-token");
    expect(JSON.stringify(await run("--json", "audit"))).not.toContain("s3cr3t-list-token");
    expect(JSON.stringify(await gw.store.modelPrices())).not.toContain("s3cr3t-list-token");
  });

  test("a URL that does not answer in time, answers more than 32 MiB, or answers 404: exit 1 with one line, nothing changed", async () => {
    const before = JSON.stringify(await gw.store.modelPrices());
    const cases = [
      ["/slow", ["--timeout", "1"], `${base}/slow did not answer within 1 s`],
      ["/huge", [], `${base}/huge is larger than 32 MiB`],
      ["/missing", [], `${base}/missing answered HTTP 404`],
    ] as const;
    for (const [path, extra, message] of cases) {
      const t0 = Date.now();
      const r = await run("models", "sync", "--prices", `${base}${path}`, ...extra);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toBe(`error: ${message}`);
      expect(Date.now() - t0).toBeLessThan(20_000);
    }
    expect(JSON.stringify(await gw.store.modelPrices())).toBe(before);
  });
});
