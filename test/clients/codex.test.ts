/**
 * Codex CLI 0.169.0 (`codex exec`), changed in nothing but its config.toml's provider (base URL
 * and key variable; README "Coding agents"), completes a tool-using turn through the gateway:
 * (i) to OpenAI, natively (the fake is OpenAI's /v1/responses); (ii) to an Anthropic-format
 * fake, translated; each runs a harmless command with its shell tool (`exec_command`) and
 * answers after seeing the output; (iii) as `gpt-5.5`, for which Codex offers `apply_patch` as
 * a custom tool, an alias to the Anthropic model: the call is translated back to a
 * `custom_tool_call` and Codex writes the file. The ledger holds exactly what the fakes reported.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "../helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "../helpers/gateway.js";
import { rows } from "../helpers/rows.js";
import { messageItem, responsesStream } from "../helpers/responses-wire.js";
import { message, messageEnd, messageStart, textBlock, textBlockEvents, toolBlockEvents, toolUseBlock } from "../providers/anthropic.fixture.js";
import { agentBin, agentDirs, agentEnv, runAgent, transcript } from "./agent-run.js";

const MARK = "codex-was-here-4711";
const FINAL = "All done: the command printed the mark.";
const PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello from apply_patch\n*** End Patch\n";
const OPENAI_USAGE = { input_tokens: 2000, output_tokens: 50, cached_tokens: 1000, reasoning_tokens: 10 };
const ANTHROPIC_USAGE = { input_tokens: 2000, output_tokens: 50 };

/** Did Codex send the tool's output back (a function_call_output / tool_result) yet? */
const hasOutput = (r: Recorded) => JSON.stringify(r.body).includes(MARK) && JSON.stringify(r.body).includes('"call_id"');

function openaiTurns(r: Recorded): Reply {
  if (hasOutput(r)) return responsesStream([messageItem(FINAL)], OPENAI_USAGE);
  const call = {
    id: "fc_1",
    type: "function_call",
    status: "completed",
    call_id: "call_exec_1",
    name: "exec_command",
    arguments: JSON.stringify({ cmd: `echo ${MARK}` }),
  };
  return responsesStream([call], OPENAI_USAGE);
}

const sawToolResult = (r: Recorded) =>
  (r.body?.messages ?? []).some((m: any) => Array.isArray(m.content) && m.content.some((b: any) => b.type === "tool_result"));

function anthropicStream(blocks: ReturnType<typeof textBlockEvents>, stop: string): Reply {
  return {
    sse: [messageStart({ input_tokens: ANTHROPIC_USAGE.input_tokens }), ...blocks, ...messageEnd(stop, { output_tokens: ANTHROPIC_USAGE.output_tokens })],
  };
}

function anthropicTurns(r: Recorded): Reply {
  const patching = (r.body?.tools ?? []).some((t: any) => t.name === "apply_patch") && JSON.stringify(r.body).includes("hello.txt");
  const reply = (blocks: unknown[], stop: string) =>
    r.body?.stream ? anthropicStream(blocks as never, stop) : message(blocks, { input_tokens: 2000, output_tokens: 50 }, stop);
  if (sawToolResult(r)) return r.body?.stream ? anthropicStream(textBlockEvents(0, [FINAL]), "end_turn") : message([textBlock(FINAL)], ANTHROPIC_USAGE);
  const call = patching
    ? { id: "toolu_01Patch", name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) }
    : { id: "toolu_01Exec", name: "exec_command", arguments: JSON.stringify({ cmd: `echo ${MARK}` }) };
  return r.body?.stream ? anthropicStream(toolBlockEvents(0, call), "tool_use") : reply([toolUseBlock(call)], "tool_use");
}

let gw: TestGateway;
let openai: FakeUpstream;
let anthropic: FakeUpstream;
let key: string;

beforeAll(async () => {
  openai = await startFakeUpstream(openaiTurns);
  anthropic = await startFakeUpstream(anthropicTurns);
  gw = await startGateway({
    server: { compat: "openai" },
    providers: {
      openai: { baseUrl: `${openai.url}/v1`, apiKey: "sk-upstream-codex-1" },
      anthropic: { baseUrl: anthropic.url, apiKey: "sk-ant-upstream-codex-1" },
    },
    aliases: { "gpt-5.5": "anthropic/claude-sonnet-4-5" },
    models: [
      {
        id: "openai/gpt-5.4",
        pricing: { prompt: "1", completion: "2", cache_read: "0.5" },
        max_output: 32000,
        endpoints: [{ provider: "openai", model: "gpt-up" }],
      },
      {
        id: "anthropic/claude-sonnet-4-5",
        pricing: { prompt: "3", completion: "15" },
        max_output: 32000,
        endpoints: [{ provider: "anthropic", model: "claude-up" }],
      },
    ],
  });
  key = await gw.createKey({ account: "codex" });
  await gw.addCredits("10", "codex");
});

afterAll(async () => {
  await gw?.close();
  await openai?.close();
  await anthropic?.close();
});

/** Codex with a config.toml naming the gateway as its one provider (README "Coding agents"), kept on loopback. */
async function codex(model: string, prompt: string) {
  const { home, cwd } = agentDirs("codex");
  const codexHome = join(home, ".codex");
  const config = [
    `model = "${model}"`,
    'model_provider = "gw"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    "",
    "[model_providers.gw]",
    'name = "gateway"',
    `base_url = "${gw.url}/v1"`,
    'env_key = "GW_KEY"',
    'wire_api = "responses"',
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[features]",
    "plugins = false",
    "",
  ].join("\n");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, "config.toml"), config);
  const run = await runAgent(agentBin("codex"), ["exec", "--skip-git-repo-check", prompt], cwd, agentEnv(home, { CODEX_HOME: codexHome, GW_KEY: key }));
  return { run, cwd };
}

const costs = async () =>
  await rows<{ model: string; cost: number; prompt_tokens: number; completion_tokens: number }>(
    gw.db,
    "SELECT model, cost, prompt_tokens, completion_tokens FROM ledger WHERE account = 'codex' ORDER BY id",
  );

describe("Codex CLI 0.169.0 through the gateway", () => {
  test("(i) to OpenAI natively: exec_command runs, its output goes back, the final text is printed; billed exactly", async () => {
    const before = (await costs()).length;
    const { run } = await codex("gpt-5.4", "Print the mark with your shell tool.");
    expect(run.code, transcript(run)).toBe(0);
    expect(run.stdout, transcript(run)).toContain(FINAL);
    const sent = openai.requests.map((r) => r.body);
    expect(openai.requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses"]);
    expect(sent[0]).toMatchObject({ model: "gpt-up", stream: true, store: false, include: ["reasoning.encrypted_content"] });
    expect(sent[0].tools.some((t: any) => t.type === "web_search")).toBe(true); // hosted tools reach OpenAI
    const output = sent[1].input.find((i: any) => i.type === "function_call_output");
    expect(output).toMatchObject({ call_id: "call_exec_1" });
    expect(JSON.stringify(output.output)).toContain(MARK);
    // 1000 uncached × 1,000 + 1000 cached × 500 + 50 × 2,000 nano-USD per turn.
    expect((await costs()).slice(before)).toEqual([
      { model: "openai/gpt-5.4", cost: 1_600_000, prompt_tokens: 2000, completion_tokens: 50 },
      { model: "openai/gpt-5.4", cost: 1_600_000, prompt_tokens: 2000, completion_tokens: 50 },
    ]);
  }, 120_000);

  test("(ii) to an Anthropic-format upstream, translated: the same turn, tool_use and tool_result by id; billed exactly", async () => {
    anthropic.requests.length = 0;
    const before = (await costs()).length;
    const { run } = await codex("claude-sonnet-4-5", "Print the mark with your shell tool.");
    expect(run.code, transcript(run)).toBe(0);
    expect(run.stdout, transcript(run)).toContain(FINAL);
    expect(anthropic.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
    const turn2 = anthropic.requests[1]!.body.messages as any[];
    const result = turn2.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_result");
    expect(result.tool_use_id).toBe("toolu_01Exec");
    expect(JSON.stringify(result.content)).toContain(MARK);
    // 2000 × 3,000 + 50 × 15,000 nano-USD per turn.
    expect((await costs()).slice(before)).toEqual([
      { model: "anthropic/claude-sonnet-4-5", cost: 6_750_000, prompt_tokens: 2000, completion_tokens: 50 },
      { model: "anthropic/claude-sonnet-4-5", cost: 6_750_000, prompt_tokens: 2000, completion_tokens: 50 },
    ]);
  }, 120_000);

  test("(iii) gpt-5.5 (an alias to the Anthropic model): Codex's apply_patch custom tool is called and the file is written", async () => {
    anthropic.requests.length = 0;
    const { run, cwd } = await codex("gpt-5.5", "Create hello.txt with apply_patch.");
    expect(run.code, transcript(run)).toBe(0);
    const tools = anthropic.requests[0]!.body.tools as any[];
    expect(tools.find((t) => t.name === "apply_patch")).toMatchObject({ input_schema: { properties: { input: { type: "string" } } } });
    expect(existsSync(join(cwd, "hello.txt")), transcript(run)).toBe(true);
    expect(readFileSync(join(cwd, "hello.txt"), "utf8")).toBe("hello from apply_patch\n");
    const turn2 = anthropic.requests[1]!.body.messages as any[];
    expect(turn2.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_result")).toMatchObject({
      tool_use_id: "toolu_01Patch",
    });
    expect(run.stdout).toContain(FINAL);
  }, 120_000);
});
