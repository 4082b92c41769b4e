/**
 * Long streams, the shape of real LLM traffic: N streamed requests at once, each answered by
 * the fake in `chunks` events `gapMs` apart, timed from send to the last byte.
 *   node dist/bench/streams-worker.js '<StreamsSpec JSON>'
 * prints one JSON line (StreamsResult). No client-side socket cap: every stream is concurrent.
 */
import { Agent, request } from "node:http";
import { isMain } from "./main.js";
import { percentile } from "./stats.js";

export interface StreamsSpec {
  url: string;
  body: string;
  headers: Record<string, string>;
  concurrency: number;
}

export interface StreamsResult {
  ok: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

function one(spec: StreamsSpec, agent: Agent): Promise<number | null> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = request(spec.url, { method: "POST", agent, headers: { "content-type": "application/json", ...spec.headers } }, (res) => {
      let tail = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => void (tail = (tail + d).slice(-64)));
      res.on("end", () => resolve(res.statusCode === 200 && tail.endsWith("data: [DONE]\n\n") ? performance.now() - t0 : null));
      res.on("error", () => resolve(null));
    });
    req.setTimeout(60_000, () => req.destroy());
    req.on("error", () => resolve(null));
    req.end(spec.body);
  });
}

export async function runStreams(spec: StreamsSpec): Promise<StreamsResult> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const times = await Promise.all(Array.from({ length: spec.concurrency }, () => one(spec, agent)));
  const ok = times.filter((t): t is number => t !== null).sort((a, b) => a - b);
  return { ok: ok.length, failed: times.length - ok.length, p50Ms: percentile(ok, 50), p99Ms: percentile(ok, 99), maxMs: ok.at(-1) ?? NaN };
}

if (isMain(import.meta.url)) {
  const result = await runStreams(JSON.parse(process.argv[2] ?? "{}") as StreamsSpec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
