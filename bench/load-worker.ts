/**
 * The load generator, a child process of its own (pinned away from the gateway):
 *   node dist/bench/load-worker.js '<LoadSpec JSON>'
 * runs autocannon for a warmup, then for the measured duration, and prints one JSON line
 * (LoadResult). Latencies are collected from autocannon's per-response event in
 * microsecond precision: its own histogram rounds to whole milliseconds, too coarse
 * for sub-millisecond overhead.
 */
import { createRequire } from "node:module";
import { isMain } from "./main.js";
import { percentile } from "./stats.js";

export interface LoadSpec {
  url: string;
  body: string;
  headers: Record<string, string>;
  connections: number;
  warmupS: number;
  durationS: number;
  stream: boolean;
  api?: "chat" | "messages";
}

export interface LoadResult {
  requests: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Responses whose body failed the cheap shape check (see bodyOk). */
  mismatches: number;
}

interface AutocannonResult {
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
}
interface AutocannonInstance {
  on(event: "response", fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
type Autocannon = (opts: Record<string, unknown>, done: (err: Error | null, result: AutocannonResult) => void) => AutocannonInstance;

const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

/** Cheap per-response check (runs on every response, so no JSON.parse); full checks are sampled in check.ts. */
export function bodyOk(stream: boolean, api: LoadSpec["api"] = "chat"): (body: string) => boolean {
  if (api === "messages")
    return stream
      ? (b) => b.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n') && b.includes('"stop_reason":"end_turn"') && b.includes('"output_tokens"')
      : (b) => b.includes('"type":"message"') && b.includes('"stop_reason":"end_turn"') && b.includes('"output_tokens"');
  return stream
    ? (b) => b.endsWith("data: [DONE]\n\n") && b.includes('"finish_reason":"stop"') && b.includes('"total_tokens"')
    : (b) => b.includes('"object":"chat.completion"') && b.includes('"finish_reason":"stop"') && b.includes('"total_tokens"');
}

function cannon(spec: LoadSpec, durationS: number, onLatency?: (ms: number) => void): Promise<AutocannonResult> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: "POST",
        body: spec.body,
        headers: spec.headers,
        connections: spec.connections,
        duration: durationS,
        timeout: 10,
        verifyBody: bodyOk(spec.stream, spec.api),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (onLatency) instance.on("response", (_c, status, _b, ms) => status >= 200 && status < 300 && onLatency(ms));
  });
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  if (spec.warmupS > 0) await cannon(spec, spec.warmupS);
  const latencies: number[] = [];
  const t0 = performance.now();
  const r = await cannon(spec, spec.durationS, (ms) => latencies.push(ms));
  const durationS = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    durationS,
    rps: latencies.length / durationS,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    meanMs: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length),
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    mismatches: r.mismatches,
  };
}

if (isMain(import.meta.url)) {
  const result = await runLoad(JSON.parse(process.argv[2] ?? "{}") as LoadSpec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
