/**
 * `npm run bench -- --observability`: what metrics and the request log cost. Two gateways,
 * each on its own copy of the bench's database, run side by side on the gateway's core: one
 * with both off (`metrics.enabled: false`, `log.level: silent`), one with the defaults
 * `gateway serve` runs with (metrics on, one JSON line per request to stdout, a pipe this
 * process reads and discards, as a log collector would). Each gets half of the load (25
 * connections, instant upstream, JSON and streamed: where the gateway's own CPU is all that
 * limits throughput, so any cost shows) at the same time.
 *
 * Why side by side: run one after the other, the same code measured ±5 % from run to run on
 * this shared 2-core machine (the load generator's core is now busier, now freer), more than
 * the 3 % to be shown. Sharing one core and one moment, both gateways see the same machine;
 * each gets an equal share of the core, so the ratio of their req/s is the ratio of their
 * CPU per request, which is what throughput on a CPU-bound gateway follows. Fresh processes
 * still differ a little (JIT, heap layout): eight rounds of two fresh gateways, which one
 * starts first (and whose load starts first) flipping each round, and the figure is the
 * median of the rounds' on/off ratios. Issue 14's target: at least 97 %.
 *
 * Why a long warm-up: V8 optimises the request path over the first ~15,000 requests, and two
 * gateways sharing one core take about 15 s to serve them (on the 2026-11-25 machine, each one's
 * req/s doubled over that time). Measured earlier, the comparison measured compilation, of which
 * the gateway with metrics and logs on has a little more, instead of steady throughput: -3 to
 * -5 % at 4 to 10 s of age, -0.6 % (JSON) and -1.5 % (stream) for the same pairs once warm.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HZ, processTicks } from "./cpu.js";
import { benchConfig, prepare, startGateway, type BenchSetup, type GatewayProcess } from "./gateway-process.js";
import { measure, type Case, type Target } from "./load.js";
import { median } from "./stats.js";

export interface ObservabilityResult {
  case: string;
  /** Req/s of each round, in round order. */
  offRps: number[];
  onRps: number[];
  /** Median over rounds of on / off req/s. */
  ratio: number;
  /** The gateway's CPU time per request (µs), from /proc. */
  offCpuUs: number[];
  onCpuUs: number[];
  /** Median over rounds of off CPU / on CPU per request. */
  cpuRatio: number;
}

interface Run {
  rps: number;
  cpuUs: number;
}

const CASES: Case[] = [false, true].map((stream) => ({ id: `0ms 2x25c ${stream ? "stream" : "json"}`, latencyMs: 0, connections: 25, stream }));
const ROUNDS = 8;
/** Side by side, not measured: each case this long, this many times over, before any case counts. */
const WARMUP_S = 3;
const WARMUP_PASSES = 3;
const log = (s: string) => process.stderr.write(`${s}\n`);

/** A setup of its own (database, key) whose config has metrics and logs switched off. */
export function observabilityOff(fakePort: number): BenchSetup {
  const setup = prepare(fakePort);
  const config = join(setup.dir, "gateway.config.off.json");
  writeFileSync(config, JSON.stringify({ ...benchConfig(fakePort), metrics: { enabled: false }, log: { level: "silent" } }, null, 2));
  return { ...setup, config };
}

const targetOf = (gw: GatewayProcess, setup: BenchSetup): Target => ({
  name: "gateway",
  url: `${gw.url}/v1/chat/completions`,
  headers: { authorization: `Bearer ${setup.key}` },
});

/** Both gateways under the same load at the same time: each one's req/s and CPU per request. */
async function side(gw: GatewayProcess, setup: BenchSetup, c: Case, timing: { warmupS: number; durationS: number }): Promise<Run> {
  const ticks = processTicks(gw.pid, false);
  const m = await measure(targetOf(gw, setup), c, timing, gw.pid);
  if (m.non2xx || m.errors || m.mismatches) throw new Error(`${c.id}: ${m.non2xx} non-2xx, ${m.errors} errors, ${m.mismatches} malformed`);
  // CPU over warm-up and measurement, requests at the measured rate over both.
  const cpuS = (processTicks(gw.pid, false) - ticks) / HZ;
  return { rps: m.rps, cpuUs: (cpuS * 1e6) / (m.rps * (timing.warmupS + timing.durationS)) };
}

async function round(off: BenchSetup, on: BenchSetup, offFirst: boolean, timing: { warmupS: number; durationS: number }): Promise<Run[][]> {
  const [a, b] = offFirst ? [off, on] : [on, off];
  const first = await startGateway(a);
  const second = await startGateway(b).catch(async (err: unknown) => (await first.close(), Promise.reject(err)));
  const [gwOff, gwOn] = offFirst ? [first, second] : [second, first];
  try {
    // Whose load starts first flips with the rounds too: the same setup on both sides (A/A) read up to -1.7 % for the second.
    const both = async (c: Case, t: { warmupS: number; durationS: number }): Promise<Run[]> => {
      const first = offFirst ? side(gwOff, off, c, t) : side(gwOn, on, c, t);
      const second = offFirst ? side(gwOn, on, c, t) : side(gwOff, off, c, t);
      const [a, b] = await Promise.all([first, second]);
      return offFirst ? [a, b] : [b, a];
    };
    // JIT warm-up, not measured: JSON and stream in turn, so both paths are optimised.
    for (let pass = 0; pass < WARMUP_PASSES; pass++) for (const c of CASES) await both(c, { warmupS: 0, durationS: WARMUP_S });
    const runs: Run[][] = [];
    for (const c of CASES) runs.push(await both(c, timing));
    return runs;
  } finally {
    await Promise.all([gwOff.close(), gwOn.close()]);
  }
}

/** Seconds the comparison takes: per round, two starts, the warm-up and each case measured. */
export function observabilityBudgetS(timing: { warmupS: number; durationS: number }): number {
  return ROUNDS * (2 + CASES.length * (WARMUP_PASSES * WARMUP_S + timing.warmupS + timing.durationS));
}

export async function compareObservability(fakePort: number, timing: { warmupS: number; durationS: number }): Promise<ObservabilityResult[]> {
  // Both on databases of their own, fresh: the bench's own database has grown by every run before this one.
  const off = observabilityOff(fakePort);
  const on = prepare(fakePort);
  const results: ObservabilityResult[] = CASES.map((c) => ({ case: c.id, offRps: [], onRps: [], ratio: NaN, offCpuUs: [], onCpuUs: [], cpuRatio: NaN }));
  try {
    for (let r = 1; r <= ROUNDS; r++) {
      log(`observability round ${r}/${ROUNDS}: metrics and logs off and on, side by side...`);
      const runs = await round(off, on, r % 2 === 1, timing);
      runs.forEach(([o, n], i) => {
        const res = results[i]!;
        res.offRps.push(o!.rps);
        res.onRps.push(n!.rps);
        res.offCpuUs.push(o!.cpuUs);
        res.onCpuUs.push(n!.cpuUs);
      });
    }
  } finally {
    off.cleanup();
    on.cleanup();
  }
  for (const r of results) {
    r.ratio = median(r.onRps.map((on, i) => on / r.offRps[i]!));
    r.cpuRatio = median(r.offCpuUs.map((o, i) => o / r.onCpuUs[i]!));
  }
  return results;
}

export function renderObservability(results: ObservabilityResult[]): string {
  const lines = results.map((r) => {
    const pct = (x: number) => `${x >= 1 ? "+" : ""}${((x - 1) * 100).toFixed(1)} %`;
    const list = (xs: number[], d = 0) => xs.map((x) => x.toFixed(d)).join(", ");
    return (
      `  ${r.case}: ${pct(r.ratio)} ${r.ratio >= 0.97 ? "PASS" : "MISS"} (median of ${r.offRps.length} rounds side by side; req/s off ${list(r.offRps)}, on ${list(r.onRps)}); ` +
      `gateway CPU per request: CPU-bound throughput ${pct(r.cpuRatio)} (µs off ${list(r.offCpuUs, 1)}, on ${list(r.onCpuUs, 1)})`
    );
  });
  return [
    "Metrics + request log on vs off (two gateways side by side on one core, instant upstream, 25 connections each, median of rounds; target: at most 3 % lower):",
    ...lines,
  ].join("\n");
}

/** One target line per case for the report's table. */
export function observabilityTargets(results: ObservabilityResult[]) {
  return results.map((r) => ({
    target: `metrics + request log on vs off, ${r.case}: throughput`,
    value: `${((r.ratio - 1) * 100).toFixed(1)} %`,
    limit: ">= -3 %",
    pass: r.ratio >= 0.97,
  }));
}
