/**
 * Long streams, the shape of real LLM traffic: N streamed requests, their starts spread evenly
 * over `rampMs` (a burst of 10,000 connects at one instant measures the accept queue, not the
 * gateway), each answered by the fake in `chunks` events `gapMs` apart and timed from its own
 * send to its last byte. One socket per stream, no client-side cap: 10,000 streams are 10,000
 * sockets in this process, within the 20,000 open files a process may have here.
 *   node dist/bench/streams-worker.js '<StreamsSpec JSON>'
 * prints one JSON line (StreamsResult).
 */
import { Agent, request } from "node:http";
import { isMain } from "./main.js";
import { percentile } from "./stats.js";

export interface StreamsSpec {
  url: string;
  body: string;
  headers: Record<string, string>;
  concurrency: number;
  /** Starts spread evenly over this long (0: all at once). */
  rampMs?: number;
}

export interface StreamsResult {
  ok: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The most streams open at once (sent, last byte not yet in). */
  peakOpen: number;
  /** Why streams failed: error code or HTTP status, counted. */
  failures: Record<string, number>;
}

const END = "data: [DONE]\n\n";

function one(spec: StreamsSpec, agent: Agent, open: { now: number; peak: number }, failures: Record<string, number>): Promise<number | null> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    open.peak = Math.max(open.peak, ++open.now);
    const done = (t: number | null, why?: string) => {
      open.now--;
      if (why) failures[why] = (failures[why] ?? 0) + 1;
      resolve(t);
    };
    const req = request(spec.url, { method: "POST", agent, headers: { "content-type": "application/json", ...spec.headers } }, (res) => {
      let tail = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => void (tail = (tail + d).slice(-END.length)));
      res.on("end", () => {
        if (res.statusCode !== 200) done(null, `http_${res.statusCode}`);
        else if (tail !== END) done(null, "no [DONE]");
        else done(performance.now() - t0);
      });
      res.on("error", (e: NodeJS.ErrnoException) => done(null, e.code ?? "response error"));
    });
    req.setTimeout(60_000, () => req.destroy(Object.assign(new Error("idle"), { code: "idle 60 s" })));
    req.on("error", (e: NodeJS.ErrnoException) => done(null, e.code ?? "request error"));
    req.end(spec.body);
  });
}

export async function runStreams(spec: StreamsSpec): Promise<StreamsResult> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const open = { now: 0, peak: 0 };
  const failures: Record<string, number> = {};
  const step = (spec.rampMs ?? 0) / spec.concurrency;
  const t0 = performance.now();
  const started: Array<Promise<number | null>> = [];
  for (let i = 0; i < spec.concurrency; i++) {
    const wait = t0 + i * step - performance.now();
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
    started.push(one(spec, agent, open, failures));
  }
  const times = await Promise.all(started);
  const ok = times.filter((t): t is number => t !== null).sort((a, b) => a - b);
  const p = (q: number) => percentile(ok, q);
  return { ok: ok.length, failed: times.length - ok.length, p50Ms: p(50), p99Ms: p(99), maxMs: ok.at(-1) ?? NaN, peakOpen: open.peak, failures };
}

if (isMain(import.meta.url)) {
  const result = await runStreams(JSON.parse(process.argv[2] ?? "{}") as StreamsSpec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
