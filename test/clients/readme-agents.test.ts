/**
 * The README's "Coding agents" section, followed as it stands: its shell blocks pasted into bash
 * in a clone-like folder (the gateway's config and database), its config files written where it
 * says, with the four pinned agents (test/agents/clients.json, whose versions its install lines
 * must name) each doing a tool-using task through the gateway against local fakes of Anthropic,
 * OpenAI and Google (clients/agent-fakes.ts). What the test changes, and only that: the providers
 * in the config point at the fakes (keys made up), `node bin/gateway.js` is this clone's bin,
 * port 8787 a free one, an agent's prompt is the test's, a price list URL a fixture file
 * (test/fixtures/prices/), and the environment keeps the agents on loopback.
 * Three starts, each for all four agents:
 * - a fresh install: the bundled catalog and the README's aliases;
 * - the current catalog after `models sync --prices` with LiteLLM's list, plus the README's
 *   `models price` and its shorter aliases;
 * - the same with models.dev's api.json.
 * Every request must be billed exactly the usage the fake reported at the price of the model the
 * README promises, by its catalog id.
 */
import { execa } from "execa";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse, stringify } from "yaml";
import { usdToNano } from "../../src/core/money.js";
import { assertBuilt, BIN, tempDir } from "../helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "../helpers/gateway.js";
import { rows } from "../helpers/rows.js";
import { anthropicFake, FINAL, googleFake, MARK, openaiFake, USAGE } from "./agent-fakes.js";
import { agentDirs, agentEnv } from "./agent-run.js";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const PINNED = JSON.parse(readFileSync(new URL("../agents/clients.json", import.meta.url), "utf8")) as Record<string, string>;
const AGENT_BIN = resolve("node_modules/.agent-clients/node_modules/.bin");
const FIXTURES = new URL("../fixtures/prices/", import.meta.url);
const PROMPT = "Print the mark with your shell tool, then say what it printed.";

/** A `### ` part of the README's "Coding agents" section. */
function part(title: string): string {
  const section = README.slice(README.indexOf("## Coding agents\n"), README.indexOf("\n## Billing\n"));
  const at = section.indexOf(`### ${title}`);
  if (at < 0) throw new Error(`README.md has no "### ${title}" under "## Coding agents"`);
  const end = section.indexOf("\n### ", at + 4);
  return section.slice(at, end < 0 ? undefined : end);
}

/** The fenced blocks of one language in a part, in order. */
const blocks = (text: string, lang: string): string[] => [...text.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)\\n```", "g"))].map((m) => m[1]!);

const NAMES = part("Model names");
const AGENTS = { codex: part("Codex CLI"), opencode: part("opencode"), claude: part("Claude Code"), gemini: part("Gemini CLI") };
const PACKAGES = { codex: "@openai/codex", opencode: "opencode-ai", claude: "@anthropic-ai/claude-code", gemini: "@google/gemini-cli" };
type Agent = keyof typeof AGENTS;

let port = 0;

/** A README shell block as this test runs it (see the file's comment for every change). */
function pasted(block: string): string {
  return block
    .split("\n")
    .filter((l) => !l.startsWith("npm install -g "))
    .map((l) =>
      l
        .replaceAll("node bin/gateway.js", `node ${JSON.stringify(BIN)}`)
        .replaceAll("127.0.0.1:8787", `127.0.0.1:${port}`)
        .replace(/^((?:claude|codex|opencode|gemini)\b[^"]*)"[^"]*"/, `$1${JSON.stringify(PROMPT)}`),
    )
    .join("\n");
}

/** Runs shell lines in the clone folder, as a user's shell would. */
async function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeout = 150_000) {
  return execa("bash", ["-e", "-c", script], { cwd, env, extendEnv: false, reject: false, stdin: "ignore", timeout });
}

/** The pinned agents first on PATH, a HOME of its own (agentEnv); what keeps each agent on loopback, not part of the README's steps. */
function environment(home: string, agent: Agent): NodeJS.ProcessEnv {
  const loopback: Record<Agent, Record<string, string>> = {
    codex: {},
    claude: {},
    opencode: {
      npm_config_offline: "true",
      npm_config_registry: "http://127.0.0.1:9/",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
    },
    gemini: { CI: "1" },
  };
  // TMPDIR: Gemini CLI writes its error reports there.
  return agentEnv(home, { PATH: `${AGENT_BIN}:${process.env.PATH}`, TMPDIR: home, ...loopback[agent] });
}

/** USD per 1M tokens (prompt, completion) of the models the README sends each agent to. */
const PRICES: Record<string, [string, string]> = {
  "anthropic/claude-sonnet-4-20250514": ["3", "15"],
  "anthropic/claude-3-5-haiku-20241022": ["0.8", "4"],
  "anthropic/claude-opus-5-5": ["4", "20"],
  "anthropic/claude-sonnet-4-5": ["3", "15"],
  "anthropic/claude-haiku-4-5": ["1", "5"],
  "openai/gpt-5": ["1.25", "10"],
  "openai/gpt-5.5": ["5", "30"],
  "google/gemini-3.1-flash-lite": ["0.25", "1.5"],
  "google/gemini-3.5-flash": ["1.5", "9"],
  "google/gemini-2.5-pro": ["1.25", "10"],
  "google/gemini-3.1-pro-preview": ["2", "12"],
  "google/gemini-3.1-pro-preview-customtools": ["2", "12"],
};

/** nano-USD for the usage every fake reports, at a model's prices. */
const costAt = ([prompt, completion]: [string, string]) =>
  (BigInt(usdToNano(prompt)) * BigInt(USAGE.prompt) + BigInt(usdToNano(completion)) * BigInt(USAGE.completion)) / 1_000_000n;

interface Start {
  name: string;
  /** Shell lines run in the clone before the server starts. */
  setup(): string;
  /** The aliases the config ends with when setup did not write them. */
  aliases?: Record<string, string>;
  /** The catalog ids each agent's requests must be billed as (the first is the agent's main model). */
  models: Record<Agent, string[]>;
}

const PRICES_BLOCK = blocks(NAMES, "sh")[1]!;
const LITELLM_URL = "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json";

/** The current catalog: the README's prices block with a list file for its URL, and its shorter aliases. */
const current = (name: string, file: string): Start => ({
  name,
  setup: () => PRICES_BLOCK.replaceAll(LITELLM_URL, new URL(file, FIXTURES).pathname),
  aliases: (parse(blocks(NAMES, "yaml")[0]!) as { aliases: Record<string, string> }).aliases,
  models: {
    claude: ["anthropic/claude-opus-5-5", "anthropic/claude-haiku-4-5"],
    opencode: ["anthropic/claude-sonnet-4-5"],
    codex: ["openai/gpt-5.5"],
    gemini: ["google/gemini-3.1-pro-preview-customtools", "google/gemini-3.1-flash-lite", "google/gemini-3.5-flash"],
  },
});

const STARTS: Start[] = [
  {
    name: "a fresh install: the bundled catalog, the README's aliases",
    setup: () => blocks(NAMES, "sh")[0]!,
    models: {
      claude: ["anthropic/claude-sonnet-4-20250514", "anthropic/claude-3-5-haiku-20241022"],
      opencode: ["anthropic/claude-sonnet-4-20250514"],
      codex: ["openai/gpt-5"],
      gemini: ["google/gemini-2.5-pro", "google/gemini-3.1-flash-lite", "google/gemini-3.5-flash"],
    },
  },
  current("the current catalog: models sync --prices with LiteLLM's list, models price, the shorter aliases", "litellm.model_prices_and_context_window.json"),
  current("the current catalog: the same with models.dev's api.json", "models.dev.api.json"),
];

let fakes: { anthropic: FakeUpstream; openai: FakeUpstream; google: FakeUpstream };
const FAKE_OF: Record<Agent, keyof typeof fakes> = { claude: "anthropic", opencode: "anthropic", codex: "openai", gemini: "google" };

beforeAll(async () => {
  assertBuilt();
  const [anthropic, openai, google] = await Promise.all([
    startFakeUpstream(anthropicFake(["claude-opus-5-5", "claude-haiku-4-5-20251001"])),
    startFakeUpstream(openaiFake(["gpt-5.5", "gpt-4o-mini"])),
    startFakeUpstream(googleFake(["gemini-3.1-pro-preview", "gemini-3.1-pro-preview-customtools", "gemini-3.5-flash-lite", "gemini-3.8-flash"])),
  ]);
  fakes = { anthropic, openai, google };
});
afterAll(async () => {
  for (const f of Object.values(fakes ?? {})) await f.close();
});

test("the install lines name the pinned versions of test/agents/clients.json", () => {
  for (const [agent, pkg] of Object.entries(PACKAGES)) {
    expect(blocks(AGENTS[agent as Agent], "sh").join("\n"), agent).toContain(`npm install -g ${pkg}@${PINNED[pkg]} `);
  }
});

describe.each(STARTS)("$name", (start) => {
  let gw: TestGateway;
  let clone: string;

  beforeAll(async () => {
    clone = tempDir();
    const config = {
      database: join(clone, "gateway.db"),
      server: { host: "127.0.0.1", port: 8787, compat: "openai" },
      providers: {
        anthropic: { baseUrl: fakes.anthropic.url, apiKey: "sk-ant-readme-agents-0000" },
        openai: { baseUrl: `${fakes.openai.url}/v1`, apiKey: "sk-readme-agents-0000" },
        google: { baseUrl: fakes.google.url, apiKey: "g-readme-agents-0000" },
      },
      ...(start.aliases && { aliases: start.aliases }),
    };
    writeFileSync(join(clone, "gateway.config.yaml"), stringify(config));
    const setup = await bash(pasted(start.setup()), clone, { PATH: process.env.PATH, HOME: clone });
    expect(setup.exitCode, `${setup.stdout}\n${setup.stderr}`).toBe(0);
    gw = await startGateway(parse(readFileSync(join(clone, "gateway.config.yaml"), "utf8")) as Record<string, unknown>);
    port = Number(new URL(gw.url).port);
    await gw.addCredits("100");
  }, 120_000);
  afterAll(() => gw?.close());

  // Longer than bash's own timeout, so a slow agent is killed by it (and says so) before the next one starts.
  test.each(Object.keys(AGENTS) as Agent[])("%s does a tool-using task, billed exactly as the README's model", { timeout: 180_000 }, async (agent) => {
    const { home } = agentDirs(`readme-${agent}`);
    const text = AGENTS[agent];
    if (agent === "codex") {
      mkdirSync(join(home, ".codex"));
      writeFileSync(join(home, ".codex", "config.toml"), pasted(blocks(text, "toml")[0]!));
    }
    if (agent === "opencode") writeFileSync(join(clone, "opencode.json"), pasted(blocks(text, "json")[0]!));
    const fake = fakes[FAKE_OF[agent]];
    const seen = fake.requests.length;
    const [{ last = 0 } = {}] = await rows<{ last: number | null }>(gw.db, "SELECT MAX(id) AS last FROM ledger");
    const script = blocks(text, "sh").map(pasted).join("\n");
    const run = await bash(script, clone, environment(home, agent));
    const why = `exit ${run.exitCode}\n--- stdout\n${run.stdout.slice(-3000)}\n--- stderr\n${run.stderr.slice(-3000)}`;
    expect(run.exitCode, why).toBe(0);
    expect(run.stdout, why).toContain(FINAL);

    const posts = fake.requests.slice(seen).filter((r) => r.method === "POST");
    expect(JSON.stringify(posts.at(-1)?.body), why).toContain(MARK); // the shell tool ran and its output went back
    const ledger = () =>
      rows<{ model: string; cost: number; status: string }>(gw.db, "SELECT model, cost, status FROM ledger WHERE id > ? ORDER BY id", last ?? 0);
    await expect.poll(async () => (await ledger()).length, { timeout: 5_000 }).toBe(posts.length); // a stream settles as it ends
    const billed = await ledger();
    expect(
      billed.some((r) => r.model === start.models[agent][0]),
      JSON.stringify(billed),
    ).toBe(true);
    for (const row of billed) {
      expect(start.models[agent], JSON.stringify(billed)).toContain(row.model);
      expect(row).toEqual({ model: row.model, cost: Number(costAt(PRICES[row.model]!)), status: "ok" });
    }
  });
});
