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

export const bodyFor = (stream: boolean): string => JSON.stringify(stream ? { ...REQUEST, stream: true } : REQUEST);

export interface Measurement extends LoadResult {
  /** Peak VmRSS of the gateway during this run (MB); null when measuring direct. */
  gatewayPeakRssMb: number | null;
}

export async function measure(target: Target, c: Case, timing: { warmupS: number; durationS: number }, gatewayPid?: number): Promise<Measurement> {
  const spec: LoadSpec = {
    url: target.url,
    body: bodyFor(c.stream),
    headers: { "content-type": "application/json", ...target.headers },
    connections: c.connections,
    warmupS: timing.warmupS,
    durationS: timing.durationS,
    stream: c.stream,
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
