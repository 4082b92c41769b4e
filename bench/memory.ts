/**
 * Memory and start-up only, the cheap part of `npm run bench` (issue 16's targets: idle RSS
 * ≤ 60 MB, peak ≤ 120 MB at 50 connections, ready ≤ 300 ms):
 *   node dist/bench/memory.js [--runs 5] [--duration 5] [--no-load] [--node-flags=--max-semi-space-size=1]
 * `gateway serve` ready time (best and median of --runs cold starts), RSS 1 s after start,
 * then peak RSS under 50 connections, non-streamed and streamed, against the fake upstream.
 * The RSS of 1,000 and 10,000 open streams: `npm run bench -- --streams` (long-streams.ts).
 * Throughput is not reported: on a shared machine it says little; RSS and start-up do.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { measureReady, prepare, ROOT, startGateway } from "./gateway-process.js";
import { measure } from "./load.js";
import { readFileSync } from "node:fs";
import { CORES, firstJsonLine, memoryOf, pinSelf, spawnPinned, stop } from "./proc.js";

const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    duration: { type: "string", default: "5" },
    "no-load": { type: "boolean", default: false },
    "node-flags": { type: "string", default: "" },
  },
});
const nodeFlags = opts["node-flags"].split(" ").filter(Boolean);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
const cpuS = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};
const mb = (n: number | null | undefined) => (n == null ? "?" : `${n.toFixed(1)} MB`);

pinSelf(CORES.load);
const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js")]);
const fakePort = (await firstJsonLine<{ port: number }>(fake, "fake upstream")).port;
const setup = prepare(fakePort);
try {
  const ready = await measureReady(setup, Number(opts.runs), nodeFlags);
  const sorted = [...ready.allMs].sort((a, b) => a - b);
  process.stdout.write(
    `ready: best ${ready.bestMs.toFixed(0)} ms, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms (${sorted.map((x) => x.toFixed(0)).join(", ")})\n`,
  );
  const gw = await startGateway(setup, nodeFlags);
  await sleep(1000);
  process.stdout.write(`idle RSS: ${mb(memoryOf(gw.pid)?.rssMb)}\n`);
  if (!opts["no-load"]) {
    const target = { name: "gateway" as const, url: `${gw.url}/v1/chat/completions`, headers: { authorization: `Bearer ${setup.key}` } };
    for (const stream of [false, true]) {
      const c = { id: "memory", latencyMs: 0, connections: 50, stream };
      const warm = await measure(target, c, { warmupS: 0, durationS: 1 }, gw.pid);
      const cpu0 = cpuS(gw.pid);
      const m = await measure(target, c, { warmupS: 0, durationS: Number(opts.duration) }, gw.pid);
      // CPU per request, not req/s: on a shared machine it is the steadier figure of what a flag costs.
      const us = ((cpuS(gw.pid) - cpu0) / m.requests) * 1e6;
      const bad = m.non2xx + m.errors + m.mismatches + warm.non2xx + warm.errors + warm.mismatches;
      const peak = Math.max(warm.gatewayPeakRssMb ?? 0, m.gatewayPeakRssMb ?? 0);
      process.stdout.write(
        `50 conns ${stream ? "stream" : "json  "}: peak RSS ${mb(peak)}, ${us.toFixed(0)} µs CPU/request${bad ? ` (INVALID: ${bad} failures)` : ""}\n`,
      );
    }
    await sleep(500);
    const after = memoryOf(gw.pid);
    process.stdout.write(`after load: RSS ${mb(after?.rssMb)}, high-water mark ${mb(after?.hwmMb)}\n`);
  }
  await gw.close();
} finally {
  await stop(fake);
  setup.cleanup();
}
