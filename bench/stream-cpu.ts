/**
 * CPU time per streamed request, per process (issue 44): what a process spends on a stream
 * before its first content chunk, and on each further chunk, the gateway against the bare
 * proxy (bare-proxy.ts) on the same core, measured alike. Figures are CPU time of the one
 * process (/proc/<pid>/stat utime + stime), not a rate, so they hold on a shared machine.
 * - per start: `streams` streams opened at once, each answered with the role chunk, one
 *   content chunk and the closing events (a new connection each, as clients arrive);
 * - per chunk: the same with 21 content chunks `gapMs` apart; the 20 extra chunks' CPU.
 * Rounds alternate which process goes first, so a drift of the machine falls on both.
 */
import { Agent, request } from "node:http";
import { HZ, processTicks } from "./cpu.js";
import { bodyFor } from "./load.js";
import { percentile } from "./stats.js";

export interface StreamCpu {
  /** µs of CPU per stream up to and including its first content chunk (and its end). */
  startUs: number;
  /** µs of CPU per further relayed chunk. */
  chunkUs: number;
}

export interface StreamCpuRow {
  streams: number;
  rounds: number;
  gapMs: number;
  /** Medians over the rounds. */
  gateway: StreamCpu;
  bare: StreamCpu;
  /** Streams that did not end in `data: [DONE]` with a 200, over all rounds and both sides. */
  failed: number;
}

export interface StreamTarget {
  url: string;
  /** The process whose CPU is counted. */
  pid: number;
  headers: Record<string, string>;
}

export interface OpenStreams {
  /** How many streams have a first byte of their answer so far. */
  firstBytes: number;
  /** Each completed stream's duration in ms (send to last byte), sorted; failures left out. */
  done: Promise<number[]>;
}

/** `n` streams at once, one connection each; a stream counts when it ends in `[DONE]`. */
export function openStreams(url: string, headers: Record<string, string>, n: number): OpenStreams {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const run: OpenStreams = { firstBytes: 0, done: Promise.resolve([]) };
  const body = bodyFor(true);
  const one = () =>
    new Promise<number | null>((resolve) => {
      const t0 = performance.now();
      const req = request(url, { method: "POST", agent, headers: { "content-type": "application/json", ...headers } }, (res) => {
        let first = true;
        let tail = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          if (first) ((first = false), run.firstBytes++);
          tail = (tail + d).slice(-32);
        });
        res.on("end", () => resolve(res.statusCode === 200 && tail.endsWith("[DONE]\n\n") ? performance.now() - t0 : null));
        res.on("error", () => resolve(null));
      });
      req.on("error", () => resolve(null));
      req.end(body);
    });
  run.done = Promise.all(Array.from({ length: n }, one)).then((t) => t.filter((x): x is number => x !== null).sort((a, b) => a - b));
  return run;
}

/** Streamed answers of `chunks` content events `gapMs` apart from the fake (0: its default burst). */
export async function shapeStreams(fakePort: number, chunks: number, gapMs: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${fakePort}/__bench/shape?chunks=${chunks}&gapMs=${gapMs}`, { method: "POST" });
  await res.arrayBuffer();
}

const cpuS = (pid: number) => processTicks(pid, false) / HZ;

/** One round on one target: its CPU per start and per chunk, and how many streams failed. */
export async function streamCpuOnce(t: StreamTarget, fakePort: number, n: number, gapMs: number): Promise<StreamCpu & { failed: number }> {
  await shapeStreams(fakePort, 1, gapMs);
  const c0 = cpuS(t.pid);
  const short = await openStreams(t.url, t.headers, n).done;
  const c1 = cpuS(t.pid);
  await shapeStreams(fakePort, 21, gapMs);
  const long = await openStreams(t.url, t.headers, n).done;
  const c2 = cpuS(t.pid);
  await shapeStreams(fakePort, 0, 0);
  const start = c1 - c0;
  return { startUs: (start / n) * 1e6, chunkUs: ((c2 - c1 - start) / (20 * n)) * 1e6, failed: 2 * n - short.length - long.length };
}

export async function compareStreamCpu(
  fakePort: number,
  gateway: StreamTarget,
  bare: StreamTarget,
  opts: { streams: number; rounds: number; gapMs: number },
): Promise<StreamCpuRow> {
  const g: StreamCpu[] = [];
  const b: StreamCpu[] = [];
  let failed = 0;
  for (let round = 0; round < opts.rounds; round++) {
    const order = round % 2 === 0 ? ([gateway, bare] as const) : ([bare, gateway] as const);
    for (const t of order) {
      const m = await streamCpuOnce(t, fakePort, opts.streams, opts.gapMs);
      failed += m.failed;
      (t === gateway ? g : b).push(m);
    }
  }
  const med = (xs: StreamCpu[]): StreamCpu => ({
    startUs: percentile(
      [...xs.map((x) => x.startUs)].sort((p, q) => p - q),
      50,
    ),
    chunkUs: percentile(
      [...xs.map((x) => x.chunkUs)].sort((p, q) => p - q),
      50,
    ),
  });
  return { streams: opts.streams, rounds: opts.rounds, gapMs: opts.gapMs, gateway: med(g), bare: med(b), failed };
}

export function renderStreamCpu(r: StreamCpuRow): string {
  const us = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} ms` : `${x.toFixed(1)} µs`);
  return (
    `CPU per streamed request (${r.streams} streams at once, ${r.rounds} alternating rounds, medians): ` +
    `before the first chunk gateway ${us(r.gateway.startUs)} vs bare proxy ${us(r.bare.startUs)} (${(r.gateway.startUs / r.bare.startUs).toFixed(2)}x), ` +
    `per chunk ${us(r.gateway.chunkUs)} vs ${us(r.bare.chunkUs)} (${(r.gateway.chunkUs / r.bare.chunkUs).toFixed(2)}x)` +
    (r.failed ? `; ${r.failed} streams FAILED` : "")
  );
}

/** Issue 44: each at most 1.5 times the bare proxy's. */
export function streamCpuTargets(r: StreamCpuRow): Array<{ target: string; value: string; limit: string; pass: boolean }> {
  const row = (what: string, g: number, b: number) => ({
    target: `CPU per stream ${what}, gateway vs bare proxy`,
    value: `${(g / b).toFixed(2)}x`,
    limit: "<= 1.5x",
    pass: r.failed === 0 && g / b <= 1.5,
  });
  return [row("before the first chunk", r.gateway.startUs, r.bare.startUs), row("per chunk", r.gateway.chunkUs, r.bare.chunkUs)];
}
