/**
 * `npm run bench -- --messages`: what POST /v1/messages costs over chat completions for the
 * same streamed request, translated to the same OpenAI-format fake (so like for like: the
 * Messages path adds its parse, translation and Anthropic event framing). Two gateways, each on
 * a database of its own (one serve per SQLite file), run side by side on the gateway's core, one under chat's streamed load, the
 * other under the Messages streamed load (25 connections each, instant upstream: the
 * gateway's own CPU is all that limits throughput), as observability.ts compares (why side by
 * side, why the warm-up: there). Rounds flip which starts first; the figure is the median of
 * the rounds' CPU-per-request ratios, Messages over chat. Target (issue 27): within 10 %.
 */
import { HZ, processTicks } from "./cpu.js";
import { prepare, startGateway, type BenchSetup, type GatewayProcess } from "./gateway-process.js";
import { measure, type Case, type Target } from "./load.js";
import { median } from "./stats.js";

export interface MessagesResult {
  chatRps: number[];
  messagesRps: number[];
  chatCpuUs: number[];
  messagesCpuUs: number[];
  /** Median over rounds of Messages CPU per request / chat CPU per request. */
  cpuRatio: number;
}

const CHAT: Case = { id: "0ms 25c stream chat", latencyMs: 0, connections: 25, stream: true, api: "chat" };
const MESSAGES: Case = { ...CHAT, id: "0ms 25c stream messages", api: "messages" };
const ROUNDS = 4;
const WARMUP_S = 3;
const WARMUP_PASSES = 2;
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Run {
  rps: number;
  cpuUs: number;
}

const targetOf = (gw: GatewayProcess, setup: BenchSetup, c: Case): Target => ({
  name: "gateway",
  url: `${gw.url}${c.api === "messages" ? "/v1/messages" : "/v1/chat/completions"}`,
  headers: { authorization: `Bearer ${setup.key}` },
});

async function side(gw: GatewayProcess, setup: BenchSetup, c: Case, timing: { warmupS: number; durationS: number }): Promise<Run> {
  const ticks = processTicks(gw.pid, false);
  const m = await measure(targetOf(gw, setup, c), c, timing, gw.pid);
  if (m.non2xx || m.errors || m.mismatches) throw new Error(`${c.id}: ${m.non2xx} non-2xx, ${m.errors} errors, ${m.mismatches} malformed`);
  const cpuS = (processTicks(gw.pid, false) - ticks) / HZ;
  return { rps: m.rps, cpuUs: (cpuS * 1e6) / (m.rps * (timing.warmupS + timing.durationS)) };
}

/** One round: two fresh gateways, chat's load on one and the Messages load on the other, at once. */
async function round(setups: [BenchSetup, BenchSetup], chatFirst: boolean, timing: { warmupS: number; durationS: number }): Promise<[Run, Run]> {
  const [chatSetup, messagesSetup] = setups;
  const first = await startGateway(chatFirst ? chatSetup : messagesSetup);
  const second = await startGateway(chatFirst ? messagesSetup : chatSetup).catch(async (err: unknown) => (await first.close(), Promise.reject(err)));
  const [chatGw, messagesGw] = chatFirst ? [first, second] : [second, first];
  try {
    const both = async (t: { warmupS: number; durationS: number }): Promise<[Run, Run]> => {
      const chat = () => side(chatGw, chatSetup, CHAT, t);
      const messages = () => side(messagesGw, messagesSetup, MESSAGES, t);
      if (chatFirst) return Promise.all([chat(), messages()]);
      const [m, c] = await Promise.all([messages(), chat()]);
      return [c, m];
    };
    for (let pass = 0; pass < WARMUP_PASSES; pass++) await both({ warmupS: 0, durationS: WARMUP_S });
    return await both(timing);
  } finally {
    await Promise.all([chatGw.close(), messagesGw.close()]);
  }
}

export function messagesBudgetS(timing: { warmupS: number; durationS: number }): number {
  return ROUNDS * (2 + WARMUP_PASSES * WARMUP_S + timing.warmupS + timing.durationS);
}

export async function compareMessages(fakePort: number, timing: { warmupS: number; durationS: number }): Promise<MessagesResult> {
  const setups: [BenchSetup, BenchSetup] = [prepare(fakePort), prepare(fakePort)];
  const r: MessagesResult = { chatRps: [], messagesRps: [], chatCpuUs: [], messagesCpuUs: [], cpuRatio: NaN };
  try {
    for (let i = 1; i <= ROUNDS; i++) {
      log(`messages round ${i}/${ROUNDS}: chat and /v1/messages streamed, side by side...`);
      const [chat, messages] = await round(setups, i % 2 === 1, timing);
      r.chatRps.push(chat.rps);
      r.messagesRps.push(messages.rps);
      r.chatCpuUs.push(chat.cpuUs);
      r.messagesCpuUs.push(messages.cpuUs);
    }
    r.cpuRatio = median(r.messagesCpuUs.map((m, i) => m / r.chatCpuUs[i]!));
    return r;
  } finally {
    for (const s of setups) s.cleanup();
  }
}

export function renderMessages(r: MessagesResult): string {
  const us = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" / ");
  const overhead = (r.cpuRatio - 1) * 100;
  return [
    "POST /v1/messages vs chat completions, streamed, translated to the same OpenAI-format fake (side by side, 2 x 25 connections):",
    `  req/s       chat ${us(r.chatRps)}   messages ${us(r.messagesRps)}`,
    `  CPU µs/req  chat ${us(r.chatCpuUs)}   messages ${us(r.messagesCpuUs)}`,
    `  Messages overhead (median CPU per request): ${overhead >= 0 ? "+" : ""}${overhead.toFixed(1)} %  ${overhead <= 10 ? "PASS" : "MISS"} (target: within 10 %)`,
  ].join("\n");
}
