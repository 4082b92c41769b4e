/**
 * `npm run bench -- --observability`: what metrics and the request log cost. The same
 * gateway, database and fake upstream, started alternately with both off (`metrics.enabled:
 * false`, `log.level: silent`) and with the defaults `gateway serve` runs with (metrics on,
 * one JSON line per request to stdout, a pipe this process reads and discards, as a log
 * collector would). Instant upstream, 50 connections, JSON and streamed: where the gateway's
 * own CPU is all that limits throughput, so any cost shows. Off and on alternate (ABBA...) so
 * drift on a shared machine falls on both; each side's best round is compared (other work on
 * the machine only ever lowers a round). Issue 14's target: on ≥ 97 % of off.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HZ, processTicks } from "./cpu.js";
import { benchConfig, startGateway, type BenchSetup } from "./gateway-process.js";
import { measure, type Case, type Target } from "./load.js";

export interface ObservabilityResult {
  case: string;
  offRps: number[];
  onRps: number[];
  /** best(on) / best(off) req/s. */
  ratio: number;
  /** The gateway's CPU time per request (µs), from /proc: steadier than req/s on a shared machine. */
  offCpuUs: number[];
  onCpuUs: number[];
  /** min(off CPU) / min(on CPU): the throughput ratio a CPU-bound gateway would show. */
  cpuRatio: number;
}

interface Run {
  rps: number;
  cpuUs: number;
}

const CASES: Case[] = [false, true].map((stream) => ({ id: `0ms 50c ${stream ? "stream" : "json"}`, latencyMs: 0, connections: 50, stream }));
const ROUNDS = 3;
const log = (s: string) => process.stderr.write(`${s}\n`);

/** A config file beside the bench's with metrics and logs switched off. */
function offSetup(setup: BenchSetup, fakePort: number): BenchSetup {
  const config = join(setup.dir, "gateway.config.off.json");
  writeFileSync(config, JSON.stringify({ ...benchConfig(fakePort), metrics: { enabled: false }, log: { level: "silent" } }, null, 2));
  return { ...setup, config };
}

async function measureWith(setup: BenchSetup, timing: { warmupS: number; durationS: number }): Promise<Run[]> {
  const gw = await startGateway(setup); // its stdout (the request log) is read and dropped
  try {
    const target: Target = { name: "gateway", url: `${gw.url}/v1/chat/completions`, headers: { authorization: `Bearer ${setup.key}` } };
    // JIT warm-up, not measured.
    for (const c of CASES) await measure(target, { ...c, id: "warmup" }, { warmupS: 0, durationS: 2 }, gw.pid);
    const runs: Run[] = [];
    for (const c of CASES) {
      const ticks = processTicks(gw.pid, false);
      const m = await measure(target, c, timing, gw.pid);
      if (m.non2xx || m.errors || m.mismatches) throw new Error(`${c.id}: ${m.non2xx} non-2xx, ${m.errors} errors, ${m.mismatches} malformed`);
      // CPU over warm-up and measurement, requests at the measured rate over both.
      const cpuS = (processTicks(gw.pid, false) - ticks) / HZ;
      runs.push({ rps: m.rps, cpuUs: (cpuS * 1e6) / (m.rps * (timing.warmupS + timing.durationS)) });
    }
    return runs;
  } finally {
    await gw.close();
  }
}

export async function compareObservability(
  setup: BenchSetup,
  fakePort: number,
  timing: { warmupS: number; durationS: number },
): Promise<ObservabilityResult[]> {
  const off = offSetup(setup, fakePort);
  const results: ObservabilityResult[] = CASES.map((c) => ({ case: c.id, offRps: [], onRps: [], ratio: NaN, offCpuUs: [], onCpuUs: [], cpuRatio: NaN }));
  for (let round = 1; round <= ROUNDS; round++) {
    // The order flips every round (off-on, on-off, ...), so whatever favours going first or second falls on both.
    const order =
      round % 2 === 1
        ? ([
            ["off", off],
            ["on", setup],
          ] as const)
        : ([
            ["on", setup],
            ["off", off],
          ] as const);
    for (const [name, s] of order) {
      log(`observability round ${round}/${ROUNDS}: metrics and logs ${name}...`);
      const runs = await measureWith(s, timing);
      runs.forEach((r, i) => {
        (name === "off" ? results[i]!.offRps : results[i]!.onRps).push(r.rps);
        (name === "off" ? results[i]!.offCpuUs : results[i]!.onCpuUs).push(r.cpuUs);
      });
    }
  }
  for (const r of results) {
    r.ratio = Math.max(...r.onRps) / Math.max(...r.offRps);
    r.cpuRatio = Math.min(...r.offCpuUs) / Math.min(...r.onCpuUs);
  }
  return results;
}

export function renderObservability(results: ObservabilityResult[]): string {
  const lines = results.map((r) => {
    const pct = (r.ratio - 1) * 100;
    const cpu = (r.cpuRatio - 1) * 100;
    const list = (xs: number[], d = 0) => xs.map((x) => x.toFixed(d)).join(", ");
    return (
      `  ${r.case}: best off ${Math.max(...r.offRps).toFixed(0)} req/s (rounds ${list(r.offRps)}), best on ${Math.max(...r.onRps).toFixed(0)} req/s (${list(r.onRps)}): ` +
      `${pct >= 0 ? "+" : ""}${pct.toFixed(1)} % ${r.ratio >= 0.97 ? "PASS" : "MISS"}; gateway CPU per request, least off ${Math.min(...r.offCpuUs).toFixed(1)} µs (${list(r.offCpuUs, 1)}), ` +
      `least on ${Math.min(...r.onCpuUs).toFixed(1)} µs (${list(r.onCpuUs, 1)}): CPU-bound throughput ${cpu >= 0 ? "+" : ""}${cpu.toFixed(1)} %`
    );
  });
  return ["Metrics + request log on vs off (instant upstream, 50 connections, best of rounds; target: at most 3 % lower):", ...lines].join("\n");
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
