/**
 * `npm run bench`: the gateway against a bare Node pass-through proxy (bare-proxy.ts, the
 * ceiling for a Node gateway) and the fake upstream directly, 8 cases
 * ({non-streamed, streamed} × {1, 50} connections × {0, 50} ms upstream latency), plus
 * streaming TTFB, `gateway serve` ready time, idle RSS and RSS across repeated runs, and the
 * stream rows: 1,000 and 10,000 concurrent 20-second streams (long-streams.ts).
 * Options: --duration <s> (default 5), --warmup <s> (default 1), --out <file>.
 * --observability: only metrics + request log on vs off (observability.ts), about 5 minutes.
 * --messages: only POST /v1/messages vs chat completions, streamed (messages.ts), about 1 minute.
 * --cache: only a response-cache hit vs a bare proxy round trip, CPU per request (cache.ts), about 40 s.
 * --fleet: only one process on PostgreSQL + Redis vs the same on SQLite, alternating rounds (fleet.ts), about 90 s.
 * --streams: only the stream rows (1,000 and 10,000 streams of 20 s, long-streams.ts), about 3 minutes.
 * --single: only one process against the bare proxy (single.ts, issue 44), about 2 minutes.
 */
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { sampleCheck, ttfbLoop } from "./check.js";
import { meterForeignCpu } from "./cpu.js";
import { quietMeasurer, RETRY_BUDGET_S } from "./quiet.js";
import { measureReady, prepare, ROOT, startGateway, type BenchSetup } from "./gateway-process.js";
import { measure, type Case, type Target } from "./load.js";
import { compareFleet, fleetTargets, measureFleet, renderFleet } from "./fleet.js";
import { measureStreamRows, renderStreams, streamRowsBudgetS, streamTargets } from "./long-streams.js";
import { canPin, CORES, firstJsonLine, memoryOf, pinSelf, spawnPinned, stop } from "./proc.js";
import { compareObservability, observabilityBudgetS, observabilityTargets, renderObservability } from "./observability.js";
import { compareMessages, messagesBudgetS, renderMessages } from "./messages.js";
import { cacheBudgetS, compareCache, renderCache } from "./cache.js";
import { compare, evaluate, render, renderTargets, writeJson, type BenchResults, type CaseResult } from "./report.js";
import type { TlsUpstream } from "./gateway-process.js";
import { measureSingle, renderSingle } from "./single.js";
import { compareStreamCpu, streamCpuTargets } from "./stream-cpu.js";

const { values: opts } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    out: { type: "string" },
    observability: { type: "boolean", default: false },
    messages: { type: "boolean", default: false },
    cache: { type: "boolean", default: false },
    fleet: { type: "boolean", default: false },
    streams: { type: "boolean", default: false },
    single: { type: "boolean", default: false },
  },
});
const timing = { warmupS: Number(opts.warmup), durationS: Number(opts.duration) };
const OUT = resolve(opts.out ?? join(ROOT, "bench/results/latest.json"));
const REPEATS = 3;
const T0 = performance.now();
const elapsedS = () => (performance.now() - T0) / 1000;
const TTFB_SAMPLES = 200;

const CASES: Case[] = [0, 50].flatMap((latencyMs) =>
  [1, 50].flatMap((connections) =>
    [false, true].map((stream) => ({ id: `${latencyMs}ms ${connections}c ${stream ? "stream" : "json"}`, latencyMs, connections, stream })),
  ),
);

const log = (s: string) => process.stderr.write(`${s}\n`);
const quietMeasure = quietMeasurer(timing, log);

async function setLatency(fakePort: number, ms: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${fakePort}/__bench/latency?ms=${ms}`, { method: "POST" });
  if (!res.ok) throw new Error(`fake upstream refused latency ${ms}`);
  await res.arrayBuffer();
}

async function fakeStats(fakePort: number): Promise<{ requests: number; connections: number }> {
  const res = await fetch(`http://127.0.0.1:${fakePort}/__bench/stats`);
  return (await res.json()) as { requests: number; connections: number };
}

async function runCase(c: Case, t: Targets, fakePort: number, pids: number[]): Promise<CaseResult> {
  log(`- ${c.id}`);
  const sampled = [...(await sampleCheck(t.gw, c.stream)), ...(await sampleCheck(t.direct, c.stream))];
  const before = await fakeStats(fakePort);
  const g = await quietMeasure(t.gw, c, pids, pids[0]);
  const after = await fakeStats(fakePort);
  const b = await quietMeasure(t.bare, c, pids);
  const d = await quietMeasure(t.direct, c, pids);
  const upstream = { requests: after.requests - before.requests, connections: after.connections - before.connections };
  return { ...compare(c, g, d, b, sampled), upstream, otherCpuPct: Math.max(g.otherCpuPct ?? 0, d.otherCpuPct ?? 0, b.otherCpuPct ?? 0) };
}

interface Targets {
  gw: Target;
  direct: Target;
  bare: Target;
}

/** The 50-connection instant-upstream load again, REPEATS times: RSS settled after each. */
async function measureRss(gw: Target, pid: number, cases: CaseResult[], idleMb: number): Promise<BenchResults["rss"]> {
  log(`RSS across ${REPEATS} repeated runs...`);
  const c: Case = { id: "repeat", latencyMs: 0, connections: 50, stream: false };
  const afterRunsMb: number[] = [];
  let peakMb = Math.max(...cases.filter((x) => x.case.connections === 50).map((x) => x.gateway.gatewayPeakRssMb ?? 0));
  for (let i = 0; i < REPEATS; i++) {
    const m = await measure(gw, c, { warmupS: 0, durationS: Math.min(timing.durationS, 3) }, pid);
    if (m.non2xx || m.errors || m.mismatches) throw new Error(`repeated run ${i + 1} had failures`);
    peakMb = Math.max(peakMb, m.gatewayPeakRssMb ?? 0);
    await new Promise((r) => setTimeout(r, 500));
    afterRunsMb.push(memoryOf(pid)?.rssMb ?? NaN);
  }
  return { idleMb, peakUnderLoadMb: peakMb, hwmMb: memoryOf(pid)?.hwmMb ?? null, afterRunsMb, growthMb: afterRunsMb.at(-1)! - afterRunsMb[0]! };
}

async function measureTtfb(gw: Target, direct: Target): Promise<BenchResults["ttfb"]> {
  log(`streaming TTFB (${TTFB_SAMPLES} sequential requests each)...`);
  const g = await ttfbLoop(gw, TTFB_SAMPLES);
  const d = await ttfbLoop(direct, TTFB_SAMPLES);
  return { gateway: g, direct: d, addedP50Ms: g.p50Ms - d.p50Ms };
}

const LAYOUT = canPin
  ? `Pinned: gateway on core ${CORES.gateway}; load generator, fake upstream and TTFB client on core ${CORES.load}.`
  : "Not pinned (no taskset or a single core): numbers are noisier.";

async function bench(fake: { port: number; pid: number; tls: TlsUpstream }, bare: { port: number; pid: number }, setup: BenchSetup): Promise<BenchResults> {
  log("gateway serve ready time (3 cold starts)...");
  const ready = await measureReady(setup);
  const gateway = await startGateway(setup);
  try {
    await new Promise((r) => setTimeout(r, 1000)); // settled after start, before any request
    const idleMb = memoryOf(gateway.pid)?.rssMb ?? NaN;
    const auth = { authorization: `Bearer ${setup.key}` };
    const gw: Target = { name: "gateway", url: `${gateway.url}/v1/chat/completions`, headers: auth };
    const direct: Target = { name: "direct", url: `http://127.0.0.1:${fake.port}/v1/chat/completions`, headers: auth };
    const t: Targets = { gw, direct, bare: { name: "bare", url: `http://127.0.0.1:${bare.port}/v1/chat/completions`, headers: auth } };
    const pids = [gateway.pid, fake.pid, bare.pid];
    // V8 optimises the hot path only after a few thousand requests: warm it before any case counts.
    log("warming the gateway up (JIT, 2 x 2 s at 50 connections, not measured)...");
    await setLatency(fake.port, 0);
    for (const stream of [false, true]) await measure(gw, { id: "warmup", latencyMs: 0, connections: 50, stream }, { warmupS: 0, durationS: 2 }, gateway.pid);
    const meter = meterForeignCpu(() => pids);
    const cases: CaseResult[] = [];
    for (const c of CASES) {
      await setLatency(fake.port, c.latencyMs);
      cases.push(await runCase(c, t, fake.port, pids));
    }
    const otherCpuPct = meter?.stop() ?? null;
    await setLatency(fake.port, 0);
    const ttfb = await measureTtfb(gw, direct);
    log("CPU per streamed request before the first chunk and per chunk, gateway vs bare proxy...");
    const streamCpu = await compareStreamCpu(fake.port, { ...gw, pid: gateway.pid }, { ...t.bare, pid: bare.pid }, { streams: 500, rounds: 3, gapMs: 100 });
    const rss = await measureRss(gw, gateway.pid, cases, idleMb);
    await gateway.close(); // one gateway at a time on the gateway's core
    log("the PostgreSQL + Redis store (a gateway of its own on a fresh database)...");
    const fleet = await measureFleet(
      fake.port,
      (ms) => setLatency(fake.port, ms),
      timing,
      (id) => cases.find((c) => c.case.id === id)?.gateway.rps ?? null,
    );
    // Each stream row on gateways of their own: RSS a process once reached stays with it.
    const streams = await measureStreamRows(fake.port, fake.tls, log, fake.pid);
    const machine = { cpus: cpus().length, node: process.version, pinned: canPin, layout: LAYOUT, otherCpuPct };
    const base = { startedAt: new Date(Date.now() - elapsedS() * 1000).toISOString(), machine, timing, cases, ttfb, streamCpu, ready, rss, streams, fleet };
    const valid = cases.every((c) => c.problems.length === 0) && ttfb.gateway.invalid === 0 && ttfb.direct.invalid === 0;
    return {
      ...base,
      targets: [...evaluate(base), ...streamCpuTargets(streamCpu), ...fleetTargets(fleet)],
      valid,
      gatewayLog: gateway.stderr,
      totalS: elapsedS(),
    };
  } finally {
    await gateway.close();
  }
}

async function main(): Promise<void> {
  const budget =
    20 +
    CASES.length * 3 * (timing.warmupS + timing.durationS) +
    REPEATS * (Math.min(timing.durationS, 3) + 0.5) +
    streamRowsBudgetS() +
    observabilityBudgetS(timing) +
    messagesBudgetS(timing) +
    cacheBudgetS(timing);
  log(
    opts.single
      ? "bench --single: one process vs the bare proxy (throughput, CPU per stream, RSS, ready), ~2 min"
      : opts.fleet
        ? "bench --fleet: one process on PostgreSQL + Redis vs SQLite, 3 alternating rounds, ~90 s"
        : opts.cache
          ? `bench --cache: a response-cache hit vs a bare proxy round trip, ~${Math.round(cacheBudgetS(timing))} s`
          : opts.messages
            ? `bench --messages: /v1/messages vs chat completions streamed, ~${Math.round(messagesBudgetS(timing))} s`
            : opts.observability
              ? `bench --observability: metrics and logs on vs off, ~${Math.round(observabilityBudgetS(timing))} s`
              : opts.streams
                ? `bench --streams: 1,000 and 10,000 streams of 20 s, gateway vs direct, ~${Math.round(streamRowsBudgetS())} s`
                : `bench: ${CASES.length} cases x {gateway, bare proxy, direct} + the stream rows, ~${Math.round(budget)} s (+ up to ${RETRY_BUDGET_S} s of retries on a busy machine)`,
  );
  pinSelf(CORES.load);
  const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js"), "--tls"]);
  let bareProxy: ReturnType<typeof spawnPinned> | undefined;
  let setup: BenchSetup | undefined;
  try {
    const { port, tlsPort, caFile } = await firstJsonLine<{ port: number; tlsPort: number; caFile: string }>(fake, "fake upstream");
    const tls = { tlsPort, caFile };
    if (opts.streams) {
      const rows = await measureStreamRows(port, tls, log, fake.pid);
      process.stdout.write(`\n${renderStreams(rows)}\n\n${renderTargets(streamTargets(rows))}\n`);
      return;
    }
    if (opts.messages) {
      process.stdout.write(`\n${renderMessages(await compareMessages(port, timing))}\n`);
      return;
    }
    if (opts.fleet) {
      process.stdout.write(`\n${renderFleet(await compareFleet(port, (ms) => setLatency(port, ms), timing))}\n`);
      return;
    }
    if (opts.observability) {
      // Its gateways and databases are its own: nothing else to start.
      process.stdout.write(`\n${renderObservability(await compareObservability(port, timing))}\n`);
      return;
    }
    // The bare proxy runs where the gateway runs: the same core is the same ceiling.
    bareProxy = spawnPinned(CORES.gateway, [join(ROOT, "dist/bench/bare-proxy.js"), String(port)]);
    const bare = await firstJsonLine<{ port: number }>(bareProxy, "bare proxy");
    if (opts.single) {
      const o = { rounds: 3, durationS: timing.durationS, streams: 500, gapMs: 100 };
      process.stdout.write(`\n${renderSingle(await measureSingle(port, { port: bare.port, pid: bareProxy.pid! }, o))}\n`);
      return;
    }
    if (opts.cache) {
      process.stdout.write(`\n${renderCache(await compareCache(port, { port: bare.port, pid: bareProxy.pid! }, timing))}\n`);
      return;
    }
    setup = prepare(port);
    const results = await bench({ port, pid: fake.pid!, tls }, { port: bare.port, pid: bareProxy.pid! }, setup);
    // A response-cache hit against the bare proxy's round trip (issue 28).
    results.cache = await compareCache(port, { port: bare.port, pid: bareProxy.pid! }, timing);
    // Last, in its own gateway processes: metrics and the request log on vs off (issue 14).
    results.observability = await compareObservability(port, timing);
    results.targets.push(...observabilityTargets(results.observability));
    // And /v1/messages streamed next to chat's streamed case (issue 27).
    results.messages = await compareMessages(port, timing);
    results.totalS = elapsedS();
    writeJson(OUT, results);
    process.stdout.write(
      `\n${render(results)}\n\n${renderFleet(results.fleet)}\n${renderMessages(results.messages)}\n${renderCache(results.cache)}\nJSON: ${OUT}\n`,
    );
    if (!results.valid) process.exitCode = 1;
  } finally {
    await stop(fake);
    if (bareProxy) await stop(bareProxy);
    setup?.cleanup();
  }
}

await main();
