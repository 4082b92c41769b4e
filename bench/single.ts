/**
 * One process near the Node limit (issue 44): the single-process rows of `npm run bench`
 * without the rest, about 2 minutes:
 *   node dist/bench/single.js [--rounds 3] [--duration 5] [--streams 500] [--gap 100]
 * `gateway serve` ready (best of 3) and idle RSS 1 s after start; then, after a warm-up,
 * rounds alternating the gateway and the bare proxy (bare-proxy.ts) on the gateway's core at
 * 50 connections against the instant fake, JSON and streamed: req/s and each process's CPU
 * per request, medians; peak RSS at 50 connections; the CPU per streamed request before the
 * first chunk and per chunk (stream-cpu.ts). GATEWAY_BENCH_CLI compares another build.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { HZ, processTicks } from "./cpu.js";
import { measureReady, prepare, ROOT, startGateway } from "./gateway-process.js";
import { measure, type Target } from "./load.js";
import { isMain } from "./main.js";
import { CORES, firstJsonLine, memoryOf, pinSelf, spawnPinned, stop } from "./proc.js";
import { median } from "./stats.js";
import { compareStreamCpu, renderStreamCpu, streamCpuTargets, type StreamCpuRow } from "./stream-cpu.js";

export interface ThroughputRow {
  stream: boolean;
  gatewayRps: number;
  bareRps: number;
  /** µs of each process's CPU per request. */
  gatewayUs: number;
  bareUs: number;
  /** Median over the rounds of gateway req/s ÷ bare req/s. */
  ratio: number;
  failures: number;
}

export interface SingleResult {
  readyMs: number[];
  idleRssMb: number;
  peakRssMb: number;
  throughput: ThroughputRow[];
  streamCpu: StreamCpuRow;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpuS = (pid: number) => processTicks(pid, false) / HZ;

/** One load run on `target` with `pid`'s CPU per request. */
async function loadOnce(target: Target, pid: number, stream: boolean, durationS: number, gatewayPid: number) {
  const c0 = cpuS(pid);
  const m = await measure(target, { id: "single", latencyMs: 0, connections: 50, stream }, { warmupS: 1, durationS }, gatewayPid);
  // The warm-up second is on the CPU too: per request over every request it served.
  const served = m.requests * ((durationS + 1) / durationS);
  return { rps: m.rps, us: ((cpuS(pid) - c0) / served) * 1e6, failures: m.non2xx + m.errors + m.mismatches, peak: m.gatewayPeakRssMb ?? 0 };
}

async function throughput(gw: Target & { pid: number }, bare: Target & { pid: number }, stream: boolean, rounds: number, durationS: number) {
  const rows: Array<{ g: Awaited<ReturnType<typeof loadOnce>>; b: Awaited<ReturnType<typeof loadOnce>> }> = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2 === 0 ? "gateway" : "bare";
    const a = await loadOnce(first === "gateway" ? gw : bare, first === "gateway" ? gw.pid : bare.pid, stream, durationS, gw.pid);
    const b = await loadOnce(first === "gateway" ? bare : gw, first === "gateway" ? bare.pid : gw.pid, stream, durationS, gw.pid);
    rows.push(first === "gateway" ? { g: a, b } : { g: b, b: a });
  }
  const row: ThroughputRow = {
    stream,
    gatewayRps: median(rows.map((r) => r.g.rps)),
    bareRps: median(rows.map((r) => r.b.rps)),
    gatewayUs: median(rows.map((r) => r.g.us)),
    bareUs: median(rows.map((r) => r.b.us)),
    ratio: median(rows.map((r) => r.g.rps / r.b.rps)),
    failures: rows.reduce((n, r) => n + r.g.failures + r.b.failures, 0),
  };
  return { row, peak: Math.max(...rows.map((r) => r.g.peak)) };
}

export async function measureSingle(
  fakePort: number,
  bare: { port: number; pid: number },
  o: { rounds: number; durationS: number; streams: number; gapMs: number },
): Promise<SingleResult> {
  const setup = prepare(fakePort);
  try {
    const ready = await measureReady(setup);
    const gateway = await startGateway(setup);
    try {
      await sleep(1000);
      const idleRssMb = memoryOf(gateway.pid)?.rssMb ?? NaN;
      const headers = { authorization: `Bearer ${setup.key}` };
      const gw = { name: "gateway" as const, url: `${gateway.url}/v1/chat/completions`, headers, pid: gateway.pid };
      const bp = { name: "bare" as const, url: `http://127.0.0.1:${bare.port}/v1/chat/completions`, headers, pid: bare.pid };
      for (const stream of [false, true]) await measure(gw, { id: "warmup", latencyMs: 0, connections: 50, stream }, { warmupS: 0, durationS: 2 }, gw.pid);
      const json = await throughput(gw, bp, false, o.rounds, o.durationS);
      const sse = await throughput(gw, bp, true, o.rounds, o.durationS);
      const streamCpu = await compareStreamCpu(fakePort, gw, bp, { streams: o.streams, rounds: o.rounds, gapMs: o.gapMs });
      return { readyMs: ready.allMs, idleRssMb, peakRssMb: Math.max(json.peak, sse.peak), throughput: [json.row, sse.row], streamCpu };
    } finally {
      await gateway.close();
    }
  } finally {
    setup.cleanup();
  }
}

export function renderSingle(r: SingleResult): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const lines = r.throughput.map(
    (t) =>
      `instant upstream, 50 conns, ${t.stream ? "stream" : "JSON  "}: gateway ${t.gatewayRps.toFixed(0)} req/s (${t.gatewayUs.toFixed(0)} µs CPU/req), ` +
      `bare ${t.bareRps.toFixed(0)} req/s (${t.bareUs.toFixed(0)} µs), gateway/bare ${pct(t.ratio)}${t.failures ? `, ${t.failures} FAILURES` : ""}`,
  );
  const targets = [
    ...r.throughput.map((t) => ({
      target: `${t.stream ? "streams" : "JSON"} vs bare proxy`,
      value: pct(t.ratio),
      limit: ">= 50 %",
      pass: !t.failures && t.ratio >= 0.5,
    })),
    { target: "idle RSS", value: `${r.idleRssMb.toFixed(1)} MB`, limit: "<= 60 MB", pass: r.idleRssMb <= 60 },
    { target: "serve ready (best of 3)", value: `${Math.min(...r.readyMs).toFixed(0)} ms`, limit: "<= 300 ms", pass: Math.min(...r.readyMs) <= 300 },
    { target: "peak RSS at 50 connections", value: `${r.peakRssMb.toFixed(1)} MB`, limit: "<= 150 MB", pass: r.peakRssMb <= 150 },
    ...streamCpuTargets(r.streamCpu),
  ];
  return [
    `serve ready: ${r.readyMs.map((x) => x.toFixed(0)).join(", ")} ms; idle RSS ${r.idleRssMb.toFixed(1)} MB; peak RSS at 50 conns ${r.peakRssMb.toFixed(1)} MB`,
    ...lines,
    renderStreamCpu(r.streamCpu),
    ...targets.map((t) => `${t.pass ? "PASS" : "MISS"}  ${t.target}: ${t.value} (${t.limit})`),
  ].join("\n");
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "3" },
      duration: { type: "string", default: "5" },
      streams: { type: "string", default: "500" },
      gap: { type: "string", default: "100" },
    },
  });
  pinSelf(CORES.load);
  const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js")]);
  const port = (await firstJsonLine<{ port: number }>(fake, "fake upstream")).port;
  const bareProxy = spawnPinned(CORES.gateway, [join(ROOT, "dist/bench/bare-proxy.js"), String(port)]);
  try {
    const bare = await firstJsonLine<{ port: number }>(bareProxy, "bare proxy");
    const o = { rounds: Number(values.rounds), durationS: Number(values.duration), streams: Number(values.streams), gapMs: Number(values.gap) };
    process.stdout.write(`${renderSingle(await measureSingle(port, { port: bare.port, pid: bareProxy.pid! }, o))}\n`);
  } finally {
    await stop(fake);
    await stop(bareProxy);
  }
}
