/**
 * One measurement: the load worker in its own pinned process against one target (the
 * gateway or the fake directly), with the gateway's RSS sampled while it runs.
 */
import { join } from "node:path";
import { ROOT } from "./gateway-process.js";
import type { LoadResult, LoadSpec } from "./load-worker.js";
import { CORES, firstJsonLine, sampleRss, spawnPinned } from "./proc.js";

const WORKER = join(ROOT, "dist/bench/load-worker.js");

export interface Target {
  name: "gateway" | "direct" | "bare";
  /** Full URL of the chat completions endpoint. */
  url: string;
  headers: Record<string, string>;
}

export interface Case {
  id: string;
  latencyMs: number;
  stream: boolean;
  connections: number;
  /** The API the request speaks: chat completions (default) or Anthropic's Messages (messages.ts). */
  api?: "chat" | "messages";
}

export const REQUEST = {
  model: "openai/gpt-4o-mini",
  messages: [
    { role: "system", content: "You are a concise assistant." },
    { role: "user", content: "Say hello to the benchmark in one short sentence." },
  ],
  max_tokens: 64,
  temperature: 0.2,
};

/** REQUEST as a Messages API request: the same model, prompt and limits. */
const MESSAGES_REQUEST = {
  model: REQUEST.model,
  system: REQUEST.messages[0]!.content,
  messages: [REQUEST.messages[1]!],
  max_tokens: REQUEST.max_tokens,
  temperature: REQUEST.temperature,
};

export const bodyFor = (stream: boolean, api: Case["api"] = "chat"): string => {
  const request = api === "messages" ? MESSAGES_REQUEST : REQUEST;
  return JSON.stringify(stream ? { ...request, stream: true } : request);
};

export interface Measurement extends LoadResult {
  /** Peak VmRSS of the gateway during this run (MB); null when measuring direct. */
  gatewayPeakRssMb: number | null;
}

export async function measure(target: Target, c: Case, timing: { warmupS: number; durationS: number }, gatewayPid?: number): Promise<Measurement> {
  const spec: LoadSpec = {
    url: target.url,
    body: bodyFor(c.stream, c.api),
    headers: { "content-type": "application/json", ...target.headers },
    connections: c.connections,
    warmupS: timing.warmupS,
    durationS: timing.durationS,
    stream: c.stream,
    api: c.api ?? "chat",
  };
  const rss = gatewayPid === undefined ? null : sampleRss(gatewayPid);
  try {
    const child = spawnPinned(CORES.load, [WORKER, JSON.stringify(spec)]);
    const result = await firstJsonLine<LoadResult>(child, "load worker", (timing.warmupS + timing.durationS) * 1000 + 30_000);
    // Reaped before returning, so its CPU time is ours (cpu.ts) and it is off the core.
    if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
    return { ...result, gatewayPeakRssMb: rss ? rss.stop() : null };
  } finally {
    rss?.stop();
  }
}

/** One benchmark target checked: what was measured against its limit (bench/report.ts renders them). */
export interface TargetResult {
  target: string;
  value: string;
  limit: string;
  pass: boolean;
}
