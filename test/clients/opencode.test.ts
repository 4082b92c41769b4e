/**
 * opencode 1.18.33 (`opencode run --auto`), with the gateway as an `@ai-sdk/openai-compatible`
 * provider in its opencode.json (README "Coding agents") and nothing else changed, completes a
 * tool-using turn (its `bash` tool) on a model id containing `claude`, for which it marks
 * system and user messages with `cache_control`: (i) routed to an Anthropic-format fake, the
 * marks arrive block-level; (ii) routed to an OpenAI-format fake, they are dropped. The ledger
 * holds exactly what the fakes reported, request by request.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "../helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "../helpers/gateway.js";
import { rows } from "../helpers/rows.js";
import { completion, stream } from "../helpers/openai-wire.js";
import { message, messageEnd, messageStart, textBlock, textBlockEvents, toolBlockEvents, toolUseBlock } from "../providers/anthropic.fixture.js";
import { agentBin, agentDirs, agentEnv, runAgent, transcript } from "./agent-run.js";

const MARK = "opencode-was-here-2718";
const FINAL = "Done: the command printed the mark.";
const bashCall = { name: "bash", arguments: JSON.stringify({ command: `echo ${MARK}`, description: "Print the mark" }) };
/** Per request: 500 input, 20 output tokens. */
const U = { input_tokens: 500, output_tokens: 20 };

const declaresBash = (r: Recorded) => (r.body?.tools ?? []).some((t: any) => (t.name ?? t.function?.name) === "bash");
const returnsResult = (r: Recorded) => JSON.stringify(r.body?.messages ?? []).includes(MARK) && JSON.stringify(r.body?.messages ?? []).includes("tool");

function anthropicTurns(r: Recorded): Reply {
  const blocks = returnsResult(r) || !declaresBash(r) ? textBlockEvents(0, [FINAL]) : toolBlockEvents(0, { id: "toolu_01Bash", ...bashCall });
  const stop = blocks[0] && JSON.stringify(blocks[0]).includes("tool_use") ? "tool_use" : "end_turn";
  if (!r.body?.stream) return message([stop === "tool_use" ? toolUseBlock({ id: "toolu_01Bash", ...bashCall }) : textBlock(FINAL)], U, stop);
  return { sse: [messageStart({ input_tokens: U.input_tokens }), ...blocks, ...messageEnd(stop, { output_tokens: U.output_tokens })] };
}

function openaiTurns(r: Recorded): Reply {
  const usage = { prompt_tokens: U.input_tokens, completion_tokens: U.output_tokens };
  if (returnsResult(r) || !declaresBash(r)) return r.body?.stream ? stream([FINAL], usage) : completion(FINAL, usage);
  const call = { id: "call_bash_1", type: "function", function: bashCall };
  if (!r.body?.stream) return completion(null, usage, { tool_calls: [call] });
  const chunk = (delta: unknown, finish: string | null, u: unknown = null) => ({
    data: {
      id: "chatcmpl-oc",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-up",
      choices: finish === "usage" ? [] : [{ index: 0, delta, finish_reason: finish }],
      usage: u,
    },
  });
  return {
    sse: [
      chunk({ role: "assistant", tool_calls: [{ index: 0, ...call, function: { name: "bash", arguments: "" } }] }, null),
      chunk({ tool_calls: [{ index: 0, function: { arguments: bashCall.arguments } }] }, null),
      chunk({}, "tool_calls"),
      chunk({}, "usage", { ...usage, total_tokens: 520 }),
    ],
  };
}

let gw: TestGateway;
let anthropic: FakeUpstream;
let openai: FakeUpstream;
let key: string;

beforeAll(async () => {
  anthropic = await startFakeUpstream(anthropicTurns);
  openai = await startFakeUpstream(openaiTurns);
  gw = await startGateway({
    server: { compat: "openai" },
    providers: { anthropic: { baseUrl: anthropic.url, apiKey: "sk-ant-upstream-oc-1" }, openai: { baseUrl: `${openai.url}/v1`, apiKey: "sk-upstream-oc-1" } },
    models: [
      {
        id: "anthropic/claude-sonnet-4-5",
        pricing: { prompt: "3", completion: "15" },
        max_output: 16000,
        endpoints: [{ provider: "anthropic", model: "claude-up" }],
      },
      // A `claude` name served by an OpenAI-format endpoint: opencode marks its messages all the same.
      { id: "openai/claude-proxy", pricing: { prompt: "1", completion: "2" }, max_output: 16000, endpoints: [{ provider: "openai", model: "gpt-up" }] },
    ],
  });
  key = await gw.createKey({ account: "opencode" });
  await gw.addCredits("10", "opencode");
});

afterAll(async () => {
  await gw?.close();
  await anthropic?.close();
  await openai?.close();
});

/** opencode with the gateway as its one provider (README "Coding agents"), kept on loopback. */
async function opencode(model: string) {
  const { home, cwd } = agentDirs("opencode");
  const config = {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    model: `gw/${model}`,
    small_model: `gw/${model}`,
    provider: {
      gw: {
        npm: "@ai-sdk/openai-compatible",
        name: "LLM gateway",
        options: { baseURL: `${gw.url}/v1`, apiKey: "{env:GW_KEY}" },
        models: { [model]: { name: model, tool_call: true } },
      },
    },
  };
  writeFileSync(join(cwd, "opencode.json"), JSON.stringify(config, null, 2));
  const env = agentEnv(home, {
    GW_KEY: key,
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    npm_config_offline: "true",
    npm_config_registry: "http://127.0.0.1:9/",
  });
  return runAgent(agentBin("opencode"), ["run", "--auto", "Print the mark with your bash tool."], cwd, env, 100_000);
}

const ledger = async (model: string) => rows<{ cost: number }>(gw.db, "SELECT cost FROM ledger WHERE account = 'opencode' AND model = ? ORDER BY id", model);

describe("opencode 1.18.33 through the gateway, a claude model id", () => {
  test("(i) to Anthropic: its cache_control marks arrive block-level; the bash tool runs; billed exactly", async () => {
    const run = await opencode("claude-sonnet-4-5");
    expect(run.code, transcript(run)).toBe(0);
    const withTools = anthropic.requests.filter(declaresBash);
    expect(withTools.length, transcript(run)).toBeGreaterThanOrEqual(2);
    const first = withTools[0]!.body;
    expect(JSON.stringify(first.system)).toContain('"cache_control":{"type":"ephemeral"}');
    const userBlocks = (first.messages as any[]).filter((m) => m.role === "user").flatMap((m) => m.content);
    expect(userBlocks.some((b: any) => b.cache_control?.type === "ephemeral")).toBe(true);
    const result = (withTools.at(-1)!.body.messages as any[])
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .find((b: any) => b.type === "tool_result");
    expect(result.tool_use_id).toBe("toolu_01Bash");
    expect(JSON.stringify(result.content)).toContain(MARK);
    // 500 × 3,000 + 20 × 15,000 nano-USD for every request the fake answered.
    expect(await ledger("anthropic/claude-sonnet-4-5")).toEqual(anthropic.requests.map(() => ({ cost: 1_800_000 })));
  }, 120_000);

  test("(ii) to an OpenAI-format provider: the marks are dropped; the bash tool runs; billed exactly", async () => {
    const run = await opencode("claude-proxy");
    expect(run.code, transcript(run)).toBe(0);
    expect(JSON.stringify(openai.requests.map((r) => r.body))).not.toContain("cache_control");
    const withTools = openai.requests.filter(declaresBash);
    expect(withTools.length, transcript(run)).toBeGreaterThanOrEqual(2);
    const tool = (withTools.at(-1)!.body.messages as any[]).find((m) => m.role === "tool");
    expect(tool.tool_call_id).toBe("call_bash_1");
    expect(JSON.stringify(tool.content)).toContain(MARK);
    // 500 × 1,000 + 20 × 2,000 nano-USD for every request the fake answered.
    expect(await ledger("openai/claude-proxy")).toEqual(openai.requests.map(() => ({ cost: 540_000 })));
  }, 120_000);
});
