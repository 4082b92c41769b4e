/**
 * `npm run bench`: the gateway against the fake upstream directly, 8 cases
 * ({non-streamed, streamed} × {1, 50} connections × {0, 50} ms upstream latency), plus
 * streaming TTFB, `gateway serve` ready time and RSS across repeated runs.
 * Options: --duration <s> (default 5), --warmup <s> (default 1), --out <file>.
 */
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { sampleCheck, ttfbLoop } from "./check.js";
import { measureReady, prepare, ROOT, startGateway, type BenchSetup, type GatewayProcess } from "./gateway-process.js";
import { measure, type Case, type Target } from "./load.js";
import { canPin, CORES, firstJsonLine, memoryOf, pinSelf, spawnPinned, stop } from "./proc.js";
import { compare, evaluate, render, writeJson, type BenchResults, type CaseResult } from "./report.js";

const { values: opts } = parseArgs({
  options: { duration: { type: "string", default: "5" }, warmup: { type: "string", default: "1" }, out: { type: "string" } },
});
const timing = { warmupS: Number(opts.warmup), durationS: Number(opts.duration) };
const OUT = resolve(opts.out ?? join(ROOT, "bench/results/latest.json"));
const REPEATS = 3;
const TTFB_SAMPLES = 200;

const CASES: Case[] = [0, 50].flatMap((latencyMs) =>
  [1, 50].flatMap((connections) =>
    [false, true].map((stream) => ({ id: `${latencyMs}ms ${connections}c ${stream ? "stream" : "json"}`, latencyMs, connections, stream })),
  ),
);

const log = (s: string) => process.stderr.write(`${s}\n`);

async function setLatency(fakePort: number, ms: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${fakePort}/__bench/latency?ms=${ms}`, { method: "POST" });
  if (!res.ok) throw new Error(`fake upstream refused latency ${ms}`);
  await res.arrayBuffer();
}

async function runCase(c: Case, gw: Target, direct: Target, pid: number): Promise<CaseResult> {
  log(`- ${c.id}`);
  const sampled = [...(await sampleCheck(gw, c.stream)), ...(await sampleCheck(direct, c.stream))];
  const g = await measure(gw, c, timing, pid);
  const d = await measure(direct, c, timing);
  return compare(c, g, d, sampled);
}

/** The 50-connection instant-upstream load again, REPEATS times: RSS settled after each. */
async function repeatedRuns(gw: Target, pid: number): Promise<{ afterRunsMb: number[]; peakMb: number }> {
  const c: Case = { id: "repeat", latencyMs: 0, connections: 50, stream: false };
  const afterRunsMb: number[] = [];
  let peakMb = 0;
  for (let i = 0; i < REPEATS; i++) {
    const m = await measure(gw, c, { warmupS: 0, durationS: Math.min(timing.durationS, 3) }, pid);
    if (m.non2xx || m.errors || m.mismatches) throw new Error(`repeated run ${i + 1} had failures`);
    peakMb = Math.max(peakMb, m.gatewayPeakRssMb ?? 0);
    await new Promise((r) => setTimeout(r, 500));
    afterRunsMb.push(memoryOf(pid)?.rssMb ?? NaN);
  }
  return { afterRunsMb, peakMb };
}

async function bench(fakePort: number, setup: BenchSetup, t0: number): Promise<BenchResults> {
  log("gateway serve ready time (3 cold starts)...");
  const ready = await measureReady(setup);
  let gateway: GatewayProcess | undefined;
  try {
    gateway = await startGateway(setup);
    const auth = { authorization: `Bearer ${setup.key}` };
    const gw: Target = { name: "gateway", url: `${gateway.url}/v1/chat/completions`, headers: auth };
    const direct: Target = { name: "direct", url: `http://127.0.0.1:${fakePort}/v1/chat/completions`, headers: auth };
    const cases: CaseResult[] = [];
    for (const c of CASES) {
      await setLatency(fakePort, c.latencyMs);
      cases.push(await runCase(c, gw, direct, gateway.pid));
    }
    await setLatency(fakePort, 0);
    log(`streaming TTFB (${TTFB_SAMPLES} sequential requests each)...`);
    const ttfb = { gateway: await ttfbLoop(gw, TTFB_SAMPLES), direct: await ttfbLoop(direct, TTFB_SAMPLES), addedP50Ms: 0 };
    ttfb.addedP50Ms = ttfb.gateway.p50Ms - ttfb.direct.p50Ms;
    log(`RSS across ${REPEATS} repeated runs...`);
    const repeats = await repeatedRuns(gw, gateway.pid);
    const peak50 = Math.max(repeats.peakMb, ...cases.filter((c) => c.case.connections === 50).map((c) => c.gateway.gatewayPeakRssMb ?? 0));
    const rss = {
      peakUnderLoadMb: peak50, hwmMb: memoryOf(gateway.pid)?.hwmMb ?? null, afterRunsMb: repeats.afterRunsMb,
      growthMb: repeats.afterRunsMb.at(-1)! - repeats.afterRunsMb[0]!,
    };
    const layout = canPin
      ? `Pinned: gateway on core ${CORES.gateway}; load generator, fake upstream and TTFB client on core ${CORES.load}.`
      : "Not pinned (no taskset or a single core): numbers are noisier.";
    const base = { startedAt: new Date(Date.now() - (performance.now() - t0)).toISOString(), machine: { cpus: availableParallelism(), node: process.version, pinned: canPin, layout }, timing, cases, ttfb, ready, rss };
    const valid = cases.every((c) => c.problems.length === 0) && ttfb.gateway.invalid === 0 && ttfb.direct.invalid === 0;
    return { ...base, targets: evaluate(base), valid, totalS: (performance.now() - t0) / 1000 };
  } finally {
    await gateway?.close();
  }
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const budget = CASES.length * 2 * (timing.warmupS + timing.durationS) + REPEATS * (Math.min(timing.durationS, 3) + 0.5) + 10;
  log(`bench: ${CASES.length} cases x {gateway, direct}, ~${Math.round(budget)} s budget`);
  pinSelf(CORES.load);
  const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js")]);
  let setup: BenchSetup | undefined;
  try {
    const { port } = await firstJsonLine<{ port: number }>(fake, "fake upstream");
    setup = prepare(port);
    const results = await bench(port, setup, t0);
    results.totalS = (performance.now() - t0) / 1000;
    writeJson(OUT, results);
    process.stdout.write(`\n${render(results)}\nJSON: ${OUT}\n`);
    if (!results.valid) process.exitCode = 1;
  } finally {
    await stop(fake);
    setup?.cleanup();
  }
}

await main();
