/**
 * The four pinned agents (test/agents/clients.json) call a gateway MCP tool in a one-shot prompt,
 * each configured as the README's "MCP" section says (its `/mcp` and a gateway key) and its model
 * pointed at the same gateway, on loopback only (agent-run.ts). The model is a fake that asks for
 * the gateway's `fs__echo` as the agent names it (mcp-agents.ts). With a key granted `fs:echo`:
 * the MCP server `fs` received the call with its arguments, the key has an `endpoint: mcp` ledger
 * row, and the tool's answer came back to the model. With a key without a grant: the agent reached
 * `/mcp` but offers the model no gateway tool, and a call the model forces anyway comes back as a
 * tool error result, `fs` never asked: each of the four refuses a tool it never listed itself,
 * before the gateway (whose own refusal test/mcp.test.ts checks; docs/mcp.md, "Grants").
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { agentDirs, agentEnv, runAgent, transcript, type AgentRun } from "./agent-run.js";
import { ECHO_ARGS, ECHO_MARK, FINAL, type Forced } from "./mcp-agent-fakes.js";
import { mcpCounts, mcpRows, namesOffered, resultsSeen, startRig, type Rig } from "./mcp-agents.js";

const BIN = (name: string) => resolve("node_modules/.agent-clients/node_modules/.bin", name);
const PROMPT = "Call the gateway's echo tool once, then say what it answered.";

interface Agent {
  name: string;
  /** The name the agent gives the gateway's `fs__echo` (README "MCP"). */
  tool: string;
  /** How a model calls it (Codex: a namespace and a name), when the agent did not offer it. */
  forced?: Forced;
  /** What the model reads back for a call it forces of a tool the agent never listed (the agent refuses it itself). */
  refusal: RegExp;
  run(rig: Rig, key: string): Promise<AgentRun>;
}

const claude: Agent = {
  name: "Claude Code",
  tool: "mcp__gateway__fs__echo",
  refusal: /No such tool available: mcp__gateway__fs__echo/,
  async run(rig, key) {
    const { home, cwd } = agentDirs("mcp-claude");
    const env = agentEnv(home, {
      ANTHROPIC_BASE_URL: rig.gw.url,
      ANTHROPIC_API_KEY: key,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
    });
    const add = ["mcp", "add", "--transport", "http", "gateway", `${rig.gw.url}/mcp`, "--header", `Authorization: Bearer ${key}`];
    const added = await runAgent(BIN("claude"), add, cwd, env, 60_000);
    if (added.code !== 0) return added;
    return runAgent(BIN("claude"), ["-p", PROMPT, "--allowedTools", "mcp__gateway"], cwd, env);
  },
};

const codex: Agent = {
  name: "Codex",
  tool: "mcp__gateway__fs__echo",
  forced: { namespace: "mcp__gateway", name: "fs__echo" },
  refusal: /unsupported call: mcp__gateway_*fs__echo/,
  async run(rig, key) {
    const { home, cwd } = agentDirs("mcp-codex");
    const codexHome = join(home, ".codex");
    mkdirSync(codexHome);
    // README "Coding agents" (Codex CLI) and "MCP": the gateway as its model provider and its MCP server.
    const config = [
      'model = "gpt-5.5"',
      'model_provider = "gateway"',
      "[model_providers.gateway]",
      'name = "LLM gateway"',
      `base_url = "${rig.gw.url}/v1"`,
      'env_key = "GATEWAY_KEY"',
      'wire_api = "responses"',
      "[analytics]",
      "enabled = false",
      "[features]",
      "plugins = false",
      "[mcp_servers.gateway]",
      `url = "${rig.gw.url}/mcp"`,
      'bearer_token_env_var = "GATEWAY_KEY"',
      'default_tools_approval_mode = "approve"',
    ];
    writeFileSync(join(codexHome, "config.toml"), config.join("\n") + "\n");
    const env = agentEnv(home, { CODEX_HOME: codexHome, GATEWAY_KEY: key });
    return runAgent(BIN("codex"), ["exec", "--skip-git-repo-check", PROMPT], cwd, env);
  },
};

const gemini: Agent = {
  name: "Gemini CLI",
  tool: "mcp_gateway_fs__echo",
  refusal: /Tool \\"mcp_gateway_fs__echo\\" not found/,
  async run(rig, key) {
    const { home, cwd } = agentDirs("mcp-gemini");
    mkdirSync(join(home, ".gemini"));
    // README "Coding agents" (Gemini CLI) and "MCP": API-key mode at the gateway, and the gateway's /mcp.
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true },
      mcpServers: { gateway: { httpUrl: `${rig.gw.url}/mcp`, headers: { Authorization: `Bearer ${key}` } } },
    };
    writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify(settings));
    // TMPDIR: Gemini CLI writes its error reports there.
    const env = agentEnv(home, { GOOGLE_GEMINI_BASE_URL: rig.gw.url, GEMINI_API_KEY: key, CI: "1", TMPDIR: home });
    return runAgent(BIN("gemini"), ["-p", PROMPT, "--skip-trust", "--yolo"], cwd, env);
  },
};

const opencode: Agent = {
  name: "opencode",
  tool: "gateway_fs__echo",
  refusal: /unavailable tool 'gateway_fs__echo'/,
  async run(rig, key) {
    const { home, cwd } = agentDirs("mcp-opencode");
    // README "Coding agents" (opencode) and "MCP": the gateway as its provider and its remote MCP server.
    const config = {
      $schema: "https://opencode.ai/config.json",
      model: "gateway/claude-sonnet-4-5",
      provider: {
        gateway: {
          npm: "@ai-sdk/openai-compatible",
          name: "LLM gateway",
          options: { baseURL: `${rig.gw.url}/v1`, apiKey: "{env:GATEWAY_KEY}" },
          models: { "claude-sonnet-4-5": { name: "Claude Sonnet 4.5 (gateway)" } },
        },
      },
      mcp: { gateway: { type: "remote", url: `${rig.gw.url}/mcp`, headers: { Authorization: "Bearer {env:GATEWAY_KEY}" } } },
    };
    writeFileSync(join(cwd, "opencode.json"), JSON.stringify(config));
    const env = agentEnv(home, {
      GATEWAY_KEY: key,
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      // Kept on loopback (agent-run.ts): no registry, plugin, LSP or model-list fetches.
      npm_config_offline: "true",
      npm_config_registry: "http://127.0.0.1:9/",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
    });
    return runAgent(BIN("opencode"), ["run", PROMPT], cwd, env);
  },
};

const AGENTS: Agent[] = [claude, codex, gemini, opencode];

describe.each(AGENTS)("$name", (agent) => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(() => rig?.close());

  test("calls the gateway's tool with a granted key: fs gets the arguments, the ledger a row, the model the answer", { timeout: 150_000 }, async () => {
    const { key, id } = await rig.key(true);
    const from = rig.model.requests.length;
    const r = await agent.run(rig, key);
    const why = transcript(r);
    expect(r.code, why).toBe(0);
    expect(r.stdout, why).toContain(FINAL);
    expect(namesOffered(rig, from), why).toContain(agent.tool);
    expect(rig.fs.calls).toEqual([{ name: "echo", args: ECHO_ARGS }]);
    expect(resultsSeen(rig, from), why).toContain(ECHO_MARK);
    const billed = (await mcpRows(rig, id)).map((row) => ({ ...row, cost: Number(row.cost) }));
    expect(billed).toEqual([{ model: "fs/echo", provider: "fs", status: "ok", cost: 1_000_000 }]);
  });

  test("with a key without a grant: no gateway tool is offered, and a forced call is refused with a tool error result", { timeout: 150_000 }, async () => {
    const { key, id } = await rig.key(false);
    const calls = rig.fs.calls.length;
    const before = await mcpCounts(rig);
    Object.assign(rig.forced, agent.forced ?? { name: agent.tool });
    const from = rig.model.requests.length;
    const r = await agent.run(rig, key);
    const why = transcript(r);
    expect(r.code, why).toBe(0);
    const names = namesOffered(rig, from);
    expect(names.length, why).toBeGreaterThan(0);
    expect(
      names.filter((n) => n.includes("fs__")),
      why,
    ).toEqual([]);
    const results = resultsSeen(rig, from);
    expect(results, why).toMatch(agent.refusal);
    expect(results).not.toContain(ECHO_MARK);
    expect(rig.fs.calls.length).toBe(calls);
    expect(await mcpRows(rig, id)).toEqual([]);
    const after = await mcpCounts(rig);
    expect(after.answered - before.answered, "the agent reached /mcp with the key: initialize, tools/list").toBeGreaterThanOrEqual(2);
    expect(after.denied - before.denied, "refused by the agent: the call never reached the gateway").toBe(0);
  });
});
