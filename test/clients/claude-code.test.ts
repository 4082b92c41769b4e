/**
 * Claude Code (the pinned `@anthropic-ai/claude-code`, test/agents/clients.json), unchanged but
 * for ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (a gateway key), in headless mode with the Bash
 * tool allowed, against (i) an Anthropic-format fake served natively and (ii) an OpenAI-format
 * fake behind the glob alias `claude-*`, translated. Each fake scripts a shell-tool round trip:
 * a Bash tool_use first, the final text once the tool result arrives; other requests Claude Code
 * makes (titles, quota checks) get a short text. A recording proxy between Claude Code and the
 * gateway shows what the client sent, so the native case can assert it reached the fake
 * unchanged. The ledger must charge exactly what the fakes reported.
 */
import { rmSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, test } from "vitest";
import { tempDir } from "../helpers/cli.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply, type SseEvent } from "../helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "../helpers/gateway.js";
import { claudeCost, CLAUDE, CLAUDE_UPSTREAM, GPT_PRICES, messagesConfig } from "../helpers/messages-wire.js";
import { rows } from "../helpers/rows.js";

const CLAUDE_BIN = resolve("node_modules/.agent-clients/node_modules/.bin/claude");
const MARK = "hello-from-bash-7c2";
const FINAL = "Done: the command printed the greeting.";
const TIMEOUT = 120_000;

interface Seen {
  headers: IncomingHttpHeaders;
  path: string;
  body: any;
}

/** A pass-through HTTP proxy to the gateway that keeps what the client sent. */
async function recordingProxy(target: string): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const to = new URL(target);
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    let body: unknown = raw.toString("utf8");
    try {
      body = JSON.parse(body as string);
    } catch {
      /* not JSON */
    }
    seen.push({ headers: req.headers, path: req.url ?? "/", body });
    const up = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on("error", () => res.destroy());
    up.end(raw);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const BASH_INPUT = { command: `echo ${MARK}`, description: "Print a greeting" };

/** Usage the fakes report, per answer: the ledger must charge exactly their sum. */
const ANTHROPIC_USAGE = { input_tokens: 120, cache_creation_input_tokens: 2000, cache_read_input_tokens: 9000, output_tokens: 33 };
const OPENAI_USAGE = { prompt_tokens: 900, completion_tokens: 25 };

function hasToolResult(messages: any[]): boolean {
  return messages.some((m) => Array.isArray(m.content) && m.content.some((b: any) => b.type === "tool_result"));
}

/** The Anthropic fake: Bash tool_use, then the final text; anything else a short text. Streams when asked. */
function anthropicScript(req: Recorded): Reply {
  const body = req.body ?? {};
  if (!String(req.path).startsWith("/v1/messages")) return { status: 404, json: { type: "error", error: { type: "not_found_error", message: "no" } } };
  const wantsBash = Array.isArray(body.tools) && body.tools.some((t: any) => t.name === "Bash");
  const turn = hasToolResult(body.messages ?? [])
    ? [{ type: "text", text: FINAL }]
    : wantsBash
      ? [{ type: "tool_use", id: `toolu_01Bash${Math.random().toString(36).slice(2, 10)}`, name: "Bash", input: BASH_INPUT }]
      : [{ type: "text", text: "Greeting test" }];
  const stop = turn[0]!.type === "tool_use" ? "tool_use" : "end_turn";
  const head = { id: "msg_01ClaudeCodeFake", type: "message", role: "assistant", model: CLAUDE_UPSTREAM, stop_sequence: null };
  if (!body.stream) return { json: { ...head, content: turn, stop_reason: stop, usage: ANTHROPIC_USAGE } };
  const ev = (type: string, data: Record<string, unknown>): SseEvent => ({ event: type, data: { type, ...data } });
  const { output_tokens, ...prompt } = ANTHROPIC_USAGE;
  const blocks = turn.flatMap((b: any, index) => [
    ev("content_block_start", { index, content_block: b.type === "text" ? { type: "text", text: "" } : { ...b, input: {} } }),
    ev("content_block_delta", {
      index,
      delta: b.type === "text" ? { type: "text_delta", text: b.text } : { type: "input_json_delta", partial_json: JSON.stringify(b.input) },
    }),
    ev("content_block_stop", { index }),
  ]);
  return {
    sse: [
      ev("message_start", { message: { ...head, content: [], stop_reason: null, usage: { ...prompt, output_tokens: 1 } } }),
      ...blocks,
      ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens } }),
      ev("message_stop", {}),
    ],
    done: false,
  };
}

/** The OpenAI-format fake: the same script in chat completions. */
function openaiScript(req: Recorded): Reply {
  const body = req.body ?? {};
  const messages: any[] = body.messages ?? [];
  const wantsBash = Array.isArray(body.tools) && body.tools.some((t: any) => t.function?.name === "Bash");
  const done = messages.some((m) => m.role === "tool");
  const call =
    !done && wantsBash
      ? { id: `call_${Math.random().toString(36).slice(2, 10)}`, type: "function", function: { name: "Bash", arguments: JSON.stringify(BASH_INPUT) } }
      : undefined;
  const text = call ? null : done ? FINAL : "Greeting test";
  const finish = call ? "tool_calls" : "stop";
  const usage = { ...OPENAI_USAGE, total_tokens: OPENAI_USAGE.prompt_tokens + OPENAI_USAGE.completion_tokens };
  const base = { id: "chatcmpl-cc", created: 1_741_569_952, model: "gpt-4o-mini" };
  if (!body.stream) {
    return {
      json: {
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: text, ...(call && { tool_calls: [call] }) }, finish_reason: finish }],
        usage,
      },
    };
  }
  const chunk = (delta: unknown, finish_reason: string | null = null) => ({
    data: { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }], usage: null },
  });
  return {
    sse: [
      chunk({ role: "assistant", content: text ?? null, ...(call && { tool_calls: [{ index: 0, ...call }] }) }),
      chunk({}, finish),
      { data: { ...base, object: "chat.completion.chunk", choices: [], usage } },
    ],
  };
}

interface Run {
  gw: TestGateway;
  fake: FakeUpstream;
  proxy: Awaited<ReturnType<typeof recordingProxy>>;
  stdout: string;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function runClaude(script: (req: Recorded) => Reply, aliasTo: string): Promise<Run> {
  const fake = await startFakeUpstream(script);
  const gw = await startGateway(messagesConfig(fake.url, fake.url, { "claude-*": aliasTo }));
  const key = await gw.createKey();
  await gw.addCredits("100");
  const proxy = await recordingProxy(gw.url);
  const home = tempDir();
  const cwd = tempDir();
  cleanups.push(async () => {
    await proxy.close();
    await gw.close();
    await fake.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });
  const r = await execa(CLAUDE_BIN, ["-p", `Run the shell command: echo ${MARK}`, "--output-format", "json", "--allowedTools", "Bash"], {
    cwd,
    reject: false,
    timeout: TIMEOUT - 10_000,
    extendEnv: false,
    stdin: "ignore",
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      ANTHROPIC_BASE_URL: proxy.url,
      ANTHROPIC_API_KEY: key,
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
    },
  });
  if (r.exitCode !== 0 || !r.stdout.includes(FINAL)) {
    console.error(`claude exited ${r.exitCode}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    console.error("gateway answers:", JSON.stringify(proxy.seen.map((s) => s.path)));
  }
  expect(r.exitCode).toBe(0);
  return { gw, fake, proxy, stdout: r.stdout };
}

/** Every messages row of the ledger: the sum must be exactly what the fake reported, request by request. */
async function ledgerCosts(gw: TestGateway): Promise<number[]> {
  const got = await rows<{ cost: number }>(gw.db, "SELECT cost FROM ledger WHERE endpoint = 'messages' AND status = 'ok'");
  return got.map((r) => r.cost);
}

const toolResultText = (messages: any[]) =>
  JSON.stringify(messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result") : [])));

describe("Claude Code", () => {
  test(
    "native to Anthropic: the shell-tool round trip; body, anthropic-beta, thinking and cache_control arrive unchanged; billed exactly",
    async () => {
      const run = await runClaude(anthropicScript, `anthropic/${CLAUDE}`);
      expect(JSON.parse(run.stdout).result).toBe(FINAL);
      const toGateway = run.proxy.seen.filter((s) => s.path.startsWith("/v1/messages"));
      const toFake = run.fake.requests.filter((r) => r.path === "/v1/messages");
      expect(toGateway.length).toBeGreaterThanOrEqual(2);
      expect(toFake).toHaveLength(toGateway.length);
      expect(toGateway[0]!.path).toBe("/v1/messages?beta=true");
      toGateway.forEach((sent, i) => {
        const got = toFake[i]!;
        expect(got.body).toEqual({ ...sent.body, model: CLAUDE_UPSTREAM });
        expect(got.headers["anthropic-beta"]).toBe(sent.headers["anthropic-beta"]);
        expect(got.headers["anthropic-version"]).toBe(sent.headers["anthropic-version"]);
      });
      const main = toFake.find((r) => r.body.tools?.some((t: any) => t.name === "Bash"))!;
      expect(main.headers["anthropic-beta"]).toMatch(/claude-code-20250219/);
      expect(main.body.thinking).toBeDefined();
      expect(JSON.stringify(main.body.system)).toContain("cache_control");
      const final = toFake.find((r) => hasToolResult(r.body.messages))!;
      expect(toolResultText(final.body.messages)).toContain(MARK);
      const costs = await ledgerCosts(run.gw);
      expect(costs).toHaveLength(toFake.length);
      expect(costs.reduce((a, b) => a + b, 0)).toBe(toFake.length * claudeCost(ANTHROPIC_USAGE));
    },
    TIMEOUT,
  );

  test(
    "aliased claude-* to an OpenAI-format model, translated: the shell-tool round trip; billed exactly",
    async () => {
      const run = await runClaude(openaiScript, "openai/gpt-4o-mini");
      expect(JSON.parse(run.stdout).result).toBe(FINAL);
      const toFake = run.fake.requests.filter((r) => r.path === "/v1/chat/completions");
      expect(toFake.length).toBeGreaterThanOrEqual(2);
      const final = toFake.find((r) => r.body.messages.some((m: any) => m.role === "tool"))!;
      const result = final.body.messages.find((m: any) => m.role === "tool");
      expect(result.content).toContain(MARK);
      const call = final.body.messages.find((m: any) => m.tool_calls)?.tool_calls[0];
      expect(result.tool_call_id).toBe(call.id);
      expect(final.headers["anthropic-beta"]).toBeUndefined();
      const costs = await ledgerCosts(run.gw);
      expect(costs).toHaveLength(toFake.length);
      expect(costs.reduce((a, b) => a + b, 0)).toBe(
        toFake.length * (OPENAI_USAGE.prompt_tokens * GPT_PRICES.prompt + OPENAI_USAGE.completion_tokens * GPT_PRICES.completion),
      );
    },
    TIMEOUT,
  );
});
