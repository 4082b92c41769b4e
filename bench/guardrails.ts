/**
 * `node dist/bench/guardrails.js`: what the secret guardrail costs (docs/guardrails.md "Cost").
 *
 * 1. CPU per 100 KB checked, in this process: a 100 KB chat request of code and prose (keywords
 *    such as `token` and `password` in it, no secret) through the request check on its raw
 *    body, the common case; the same with one secret in it (the JSON is then parsed, each string
 *    checked and the body rebuilt); and the plain scan of 100 KB of text. Goal ≤ 1 ms.
 * 2. Throughput at 50 connections, guardrails off and in `redact` mode, the same chat request
 *    (non-streamed and streamed, instant upstream), alternating rounds; the figure is the
 *    median of the rounds' requests per second and the gateway's CPU per request. Goal ≤ 5 %.
 *
 * Options: --rounds N (3), --duration s (10), --warmup s (2), --skip-load.
 */
import { parseArgs } from "node:util";
import { guardFor } from "../src/guardrails/policy.js";
import { checkRequest } from "../src/guardrails/request.js";
import { HZ, processTicks } from "./cpu.js";
import { prepare, startGateway } from "./gateway-process.js";
import { freePort } from "./proc.js";
import { REPLY_PARTS, startFake } from "./fake-upstream.js";
import { bodyFor, measure, type Case, type Target } from "./load.js";
import { StreamCheck } from "../src/guardrails/stream.js";
import { median } from "./stats.js";

const log = (s: string) => process.stderr.write(`${s}\n`);

/** ~100 KB of what agents send: source code, shell output, prose; keywords, no secret. */
function prompt(bytes: number): string {
  const lines = [
    "export async function refreshToken(client: Client, token: string): Promise<Session> {",
    "  const res = await client.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: token });",
    "  if (!res.ok) throw new Error(`token refresh failed: ${res.status}`);",
    "  return { accessToken: res.body.access_token, expiresAt: Date.now() + res.body.expires_in * 1000 };",
    "}",
    "// The password field is hashed with scrypt before it is stored; never log it.",
    "$ git log --oneline | head -3",
    "9f86d08 fix: count max_tokens in the prompt budget",
    "The user asked how the secret manager rotates keys; the answer explains the schedule.",
    '{"id": "123e4567-e89b-12d3-a456-426614174000", "max_tokens": 1024, "temperature": 0.2}',
  ];
  let out = "";
  for (let i = 0; out.length < bytes; i++) out += lines[i % lines.length] + "\n";
  return out.slice(0, bytes);
}

function cpuPerCall(run: () => void, iterations: number): number {
  for (let i = 0; i < 50; i++) run(); // warm the JIT
  const t = process.cpuUsage();
  for (let i = 0; i < iterations; i++) run();
  const used = process.cpuUsage(t);
  return (used.user + used.system) / iterations;
}

function cpuRows(): Record<string, number> {
  const text = prompt(100 * 1024);
  const body = (content: string) => Buffer.from(JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] }));
  const clean = body(text);
  const secret = body(text.slice(0, 50_000) + "\nexport AWS_ACCESS_KEY_ID=AKIAZ3MSJV4WWNKWYJU7\n" + text.slice(50_000));
  const guard = guardFor({ mode: "redact", direction: ["request"] })!;
  const answers = guardFor({ mode: "redact", direction: ["response"] })!;
  return {
    "request check, 100 KB, no secret (µs)": cpuPerCall(() => checkRequest(guard, clean), 400),
    "request check, 100 KB, one secret redacted (µs)": cpuPerCall(() => checkRequest(guard, secret), 200),
    "scan of 100 KB of text (µs)": cpuPerCall(() => guard.scanner.scan(text), 400),
    // What one bench request adds (the load rows' request and answer, streamed in REPLY_PARTS): robust to a loaded machine.
    "request check, the bench's chat request (µs)": cpuPerCall(() => checkRequest(guard, Buffer.from(bodyFor(false))), 20_000),
    "stream check, the bench's streamed answer (µs)": cpuPerCall(() => {
      const check = new StreamCheck<{ content: string }>(answers);
      for (const content of REPLY_PARTS) check.push({ content });
      check.end();
    }, 20_000),
  };
}

async function throughput(opts: { rounds: number; warmupS: number; durationS: number }) {
  const fakePort = await freePort();
  await startFake(fakePort);
  const setups = { off: prepare(fakePort), on: prepare(fakePort, undefined, { guardrails: "redact" }) };
  const gws = { off: await startGateway(setups.off), on: await startGateway(setups.on) };
  const out: Record<string, { rps: number[]; cpuUs: number[] }> = {};
  try {
    for (const stream of [false, true]) {
      const c: Case = { id: `0ms 50c ${stream ? "stream" : "json"}`, latencyMs: 0, connections: 50, stream };
      for (let i = 1; i <= opts.rounds; i++) {
        for (const mode of ["off", "on"] as const) {
          log(`guardrails ${mode}, ${c.id}, round ${i}/${opts.rounds}...`);
          const target: Target = { name: "gateway", url: `${gws[mode].url}/v1/chat/completions`, headers: { authorization: `Bearer ${setups[mode].key}` } };
          const ticks = processTicks(gws[mode].pid, false);
          const m = await measure(target, c, opts, gws[mode].pid);
          const cpuS = (processTicks(gws[mode].pid, false) - ticks) / HZ;
          const row = (out[`${c.id} ${mode}`] ??= { rps: [], cpuUs: [] });
          row.rps.push(m.rps);
          row.cpuUs.push((cpuS * 1e6) / (m.rps * (opts.warmupS + opts.durationS)));
        }
      }
    }
  } finally {
    await gws.off.close();
    await gws.on.close();
    setups.off.cleanup();
    setups.on.cleanup();
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, { rps: Math.round(median(v.rps)), cpuUsPerRequest: Math.round(median(v.cpuUs)) }]));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rounds: { type: "string" }, duration: { type: "string" }, warmup: { type: "string" }, "skip-load": { type: "boolean" } },
  });
  const cpu = cpuRows();
  for (const [k, v] of Object.entries(cpu)) log(`${k}: ${v.toFixed(1)}`);
  const load = values["skip-load"]
    ? null
    : await throughput({ rounds: Number(values.rounds ?? 3), warmupS: Number(values.warmup ?? 2), durationS: Number(values.duration ?? 10) });
  process.stdout.write(`${JSON.stringify({ cpu, load, loadavg: (await import("node:os")).loadavg() }, null, 2)}\n`);
  process.exit(0);
}

void main();
