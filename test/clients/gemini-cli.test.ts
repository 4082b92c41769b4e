/**
 * Gemini CLI 0.61.0 (test/agents/clients.json), headless and changed in nothing but its base
 * URL and key (docs/gemini.md, README "Gemini CLI"), against the gateway: (i) natively in front
 * of a Google-format fake, (ii) translated to an OpenAI-format fake through a `gemini-*` alias.
 * Each fake answers the CLI's routing-classifier call with JSON for the schema it asks for,
 * then scripts a shell-tool round trip: turn 1 calls `run_shell_command` (an `echo` in a temp
 * cwd), turn 2, once the command's output came back as the function's result, answers text.
 * The ledger must charge exactly the usage the fakes reported. HOME is a temp dir whose
 * settings turn usage statistics and updates off: the CLI talks to 127.0.0.1 only.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { costOf, usdToNano } from "../../src/core/money.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "../helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "../helpers/gateway.js";
import { rows } from "../helpers/rows.js";
import { candidate, response, sse } from "../providers/google.fixture.js";
import { fill } from "./agent-fakes.js";

const GEMINI = resolve("node_modules/.agent-clients/node_modules/.bin/gemini");
const MARK = "gemini-cli-tool-ok";
const FINAL = "The command printed the marker.";
const PRICES = { prompt: usdToNano("1"), completion: usdToNano("2"), cacheRead: usdToNano("0.5") };

/** What a fake reported, in the gateway's billing terms (prompt incl. cached; completion incl. thoughts). */
interface Reported {
  prompt: number;
  completion: number;
  cached: number;
}

/** Google's format: the classifier (generateContent), then the tool round trip (streamGenerateContent). */
function googleScript(reported: Reported[]) {
  return (req: Recorded): Reply => {
    const body = req.body;
    const n = reported.length;
    const usage = { promptTokenCount: 300 + n, candidatesTokenCount: 20 + n, thoughtsTokenCount: 7, cachedContentTokenCount: 100 };
    reported.push({ prompt: usage.promptTokenCount, completion: usage.candidatesTokenCount + 7, cached: 100 });
    if (!req.path.includes(":streamGenerateContent")) {
      const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
      return { json: response([candidate([{ text: JSON.stringify(fill(schema)) }], "STOP")], usage) };
    }
    const answered = body.contents.some((c: any) => c.parts.some((p: any) => p.functionResponse));
    const part = answered ? { text: FINAL } : { functionCall: { name: "run_shell_command", args: { command: `echo ${MARK}`, description: "print a marker" } } };
    return sse([response([candidate([part], "STOP")], usage)]);
  };
}

const chunk = (choices: unknown[], usage: unknown = null) => ({
  id: "chatcmpl-cli",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-4o-mini",
  choices,
  usage,
});

/** OpenAI's format: the classifier as a JSON-schema completion, the round trip as chunk streams. */
function openaiScript(reported: Reported[]) {
  return (req: Recorded): Reply => {
    const body = req.body;
    const n = reported.length;
    const usage = { prompt_tokens: 400 + n, completion_tokens: 30 + n, total_tokens: 430 + 2 * n };
    reported.push({ prompt: usage.prompt_tokens, completion: usage.completion_tokens, cached: 0 });
    if (!body.stream) {
      const text = JSON.stringify(fill(body.response_format?.json_schema?.schema));
      return {
        json: {
          id: "chatcmpl-c",
          object: "chat.completion",
          created: 1,
          model: "gpt-4o-mini",
          choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
          usage,
        },
      };
    }
    const answered = body.messages.some((m: any) => m.role === "tool");
    const deltas = answered
      ? [chunk([{ index: 0, delta: { role: "assistant", content: FINAL }, finish_reason: null }]), chunk([{ index: 0, delta: {}, finish_reason: "stop" }])]
      : [
          chunk([
            {
              index: 0,
              delta: {
                role: "assistant",
                tool_calls: [{ index: 0, id: "call_sh1", type: "function", function: { name: "run_shell_command", arguments: "" } }],
              },
              finish_reason: null,
            },
          ]),
          chunk([
            {
              index: 0,
              delta: { tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ command: `echo ${MARK}`, description: "print a marker" }) } }] },
              finish_reason: null,
            },
          ]),
          chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
        ];
    return { sse: [...deltas, chunk([], usage)].map((data) => ({ data })) };
  };
}

interface Case {
  name: string;
  script(reported: Reported[]): (req: Recorded) => Reply;
  config(fakeUrl: string): Record<string, unknown>;
  /** The tool result the fake received, from the turn-2 request. */
  toolResult(req: Recorded): string;
}

const CASES: Case[] = [
  {
    name: "natively, in front of a Google-format fake",
    script: googleScript,
    config: (url) => ({
      providers: { google: { baseUrl: url, apiKey: "g-upstream-cli-7731" } },
      models: [
        {
          id: "google/gemini-2.5-flash",
          pricing: { prompt: "1", completion: "2", cache_read: "0.5" },
          endpoints: [{ provider: "google", model: "gemini-2.5-flash" }],
        },
      ],
      aliases: { "gemini-*": "google/gemini-2.5-flash" },
    }),
    toolResult: (req) => JSON.stringify(req.body.contents.flatMap((c: any) => c.parts.filter((p: any) => p.functionResponse))),
  },
  {
    name: "translated to an OpenAI-format fake (alias gemini-*)",
    script: openaiScript,
    config: (url) => ({
      providers: { openai: { baseUrl: `${url}/v1`, apiKey: "sk-upstream-cli-7732" } },
      models: [{ id: "openai/gpt-4o-mini", pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
      aliases: { "gemini-*": "openai/gpt-4o-mini" },
    }),
    toolResult: (req) => JSON.stringify(req.body.messages.filter((m: any) => m.role === "tool")),
  },
];

for (const c of CASES) {
  describe(`Gemini CLI 0.61.0 ${c.name}`, () => {
    const reported: Reported[] = [];
    let fake: FakeUpstream;
    let gw: TestGateway;
    let key: string;
    beforeAll(async () => {
      fake = await startFakeUpstream(c.script(reported));
      gw = await startGateway(c.config(fake.url));
      key = await gw.createKey();
      await gw.addCredits("10");
    });
    afterAll(async () => {
      await gw?.close();
      await fake?.close();
    });

    test("a headless run with one shell-tool round trip completes; the ledger charges what the fake reported", { timeout: 150_000 }, async () => {
      const { home, cwd } = clientDirs();
      const run = await execa(
        GEMINI,
        ["-p", "Run `echo` to print the marker, then tell me what it printed.", "--skip-trust", "--yolo", "--output-format", "json"],
        {
          cwd,
          env: { PATH: process.env.PATH, HOME: home, GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: key, TERM: "dumb", NO_COLOR: "1", CI: "1" },
          extendEnv: false,
          stdin: "ignore",
          reject: false,
          timeout: 120_000,
        },
      );
      const why = `exit ${run.exitCode}\nstderr:\n${run.stderr}\nstdout:\n${run.stdout.slice(0, 2000)}`;
      expect(run.exitCode, why).toBe(0);
      expect(JSON.parse(run.stdout).response, why).toContain(FINAL);

      // The classifier, turn 1 (the call) and turn 2 (its result): every request reached the fake through the gateway.
      const turns = fake.requests.filter((r) => JSON.stringify(r.body).includes("run_shell_command"));
      expect(turns.length, why).toBeGreaterThanOrEqual(2);
      expect(c.toolResult(turns.at(-1)!)).toContain(MARK);

      // Exactly what the fakes reported, row by row (streams settle as they end).
      const expected = reported.reduce((sum, u) => sum + costOf(PRICES, u.prompt, u.completion, { read: u.cached }), 0);
      await expect.poll(async () => (await ledgerOf(gw)).length).toBe(fake.requests.length);
      const ledger = await ledgerOf(gw);
      expect(ledger.every((r) => r.endpoint === "gemini" && r.status === "ok" && r.usage_source === "provider")).toBe(true);
      expect(ledger.reduce((s, r) => s + r.prompt_tokens, 0)).toBe(reported.reduce((s, u) => s + u.prompt, 0));
      expect(ledger.reduce((s, r) => s + r.completion_tokens, 0)).toBe(reported.reduce((s, u) => s + u.completion, 0));
      expect(ledger.reduce((s, r) => s + r.cost, 0)).toBe(expected);
    });
  });
}

const ledgerOf = (gw: TestGateway) => rows<Record<string, any>>(gw.db, "SELECT * FROM ledger ORDER BY id");

/** HOME with the settings a user copies (README "Gemini CLI"), and an empty working directory. */
function clientDirs(): { home: string; cwd: string } {
  const root = mkdtempSync(join(process.env.GATEWAY_TEST_TMP!, "gemini-cli-"));
  const home = join(root, "home");
  const cwd = join(root, "work");
  mkdirSync(join(home, ".gemini"), { recursive: true });
  mkdirSync(cwd);
  const settings = { security: { auth: { selectedType: "gemini-api-key" } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true } };
  writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify(settings));
  return { home, cwd };
}
