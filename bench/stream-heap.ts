/**
 * What one open stream costs inside the gateway (issue 30): memory held while it is open
 * and CPU per stream start and per relayed chunk.
 *   node dist/bench/stream-heap.js [--streams 1000] [--gap 1000] [--no-snapshot]
 * 1. Idle: RSS, and a heap snapshot (`--heapsnapshot-signal`) after a warm-up.
 * 2. Open: `streams` streams whose upstream sends a chunk every 10 s; once every one has its
 *    first byte, RSS and a second snapshot; the difference per stream, by kind (heap-summary.ts).
 * 3. CPU (/proc/<pid>/stat utime+stime): `streams` one-chunk streams (per start), then
 *    `streams` 21-chunk streams `gap` ms apart; the extra 20 chunks give the CPU per chunk.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { prepare, ROOT, startGateway } from "./gateway-process.js";
import { diffLines, summarise } from "./heap-summary.js";
import { CORES, firstJsonLine, memoryOf, pinSelf, spawnPinned, stop } from "./proc.js";
import { percentile } from "./stats.js";
import { HZ, processTicks } from "./cpu.js";
import { openStreams, shapeStreams as shape } from "./stream-cpu.js";

const { values: opts } = parseArgs({
  options: {
    streams: { type: "string", default: "1000" },
    gap: { type: "string", default: "1000" },
    "no-snapshot": { type: "boolean", default: false },
  },
});
const N = Number(opts.streams);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);
const cpuSeconds = (pid: number) => processTicks(pid, false) / HZ;
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/** `n` streams at once, one connection each; says how many failed. */
function streams(url: string, key: string, n: number) {
  const run = openStreams(url, auth(key), n);
  run.done = run.done.then((ok) => {
    if (ok.length !== n) say(`  ${n - ok.length} of ${n} streams failed`);
    return ok;
  });
  return run;
}

/** Signals the gateway to write a heap snapshot into `dir` and waits until it is complete. */
async function snapshot(pid: number, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, "SIGUSR2");
  for (let last = -1; ; await sleep(500)) {
    const file = readdirSync(dir).find((f) => f.endsWith(".heapsnapshot") && !before.has(f));
    if (!file) continue;
    const path = join(dir, file);
    const size = statSync(path).size;
    if (size > 0 && size === last && endsComplete(path, size)) return path;
    last = size;
  }
}

function endsComplete(path: string, size: number): boolean {
  const fd = openSync(path, "r");
  const tail = Buffer.alloc(8);
  readSync(fd, tail, 0, 8, Math.max(0, size - 8));
  closeSync(fd);
  return tail.toString().trimEnd().endsWith("]}");
}

pinSelf(CORES.load);
const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js")]);
const fakePort = (await firstJsonLine<{ port: number }>(fake, "fake upstream")).port;
const setup = prepare(fakePort);
const gw = await startGateway(setup, ["--heapsnapshot-signal=SIGUSR2"]);
const url = `${gw.url}/v1/chat/completions`;
try {
  for (let i = 0; i < 4; i++) await streams(url, setup.key, 100).done; // warm-up: modules loaded, code optimised
  await sleep(2500);
  const idleRss = memoryOf(gw.pid)!.rssMb;
  const idleSnap = opts["no-snapshot"] ? undefined : await snapshot(gw.pid, setup.dir);
  say(`idle RSS ${idleRss.toFixed(1)} MB`);

  await shape(fakePort, 2, 10_000);
  const open = streams(url, setup.key, N);
  while (open.firstBytes < N) await sleep(100);
  await sleep(1500);
  const openRss = memoryOf(gw.pid)!.rssMb;
  say(`${N} open streams: RSS ${openRss.toFixed(1)} MB, ${(((openRss - idleRss) * 1024) / N).toFixed(1)} KB per stream above idle`);
  if (idleSnap) for (const line of diffLines(summarise(idleSnap), summarise(await snapshot(gw.pid, setup.dir)), N)) say(`  ${line}`);
  await open.done;

  await shape(fakePort, 1, 10);
  const c0 = cpuSeconds(gw.pid);
  await streams(url, setup.key, N).done;
  const c1 = cpuSeconds(gw.pid);
  await shape(fakePort, 21, Number(opts.gap));
  const long = await streams(url, setup.key, N).done;
  const c2 = cpuSeconds(gw.pid);
  const perStart = ((c1 - c0) / N) * 1e6;
  const perChunk = ((c2 - c1 - (c1 - c0)) / (20 * N)) * 1e6;
  say(`CPU: ${perStart.toFixed(0)} µs per one-chunk stream, ${perChunk.toFixed(1)} µs per further chunk (21 chunks ${opts.gap} ms apart)`);
  say(`21-chunk streams through the gateway: p50 ${percentile(long, 50).toFixed(0)} ms, p99 ${percentile(long, 99).toFixed(0)} ms`);
  say(`peak RSS ${memoryOf(gw.pid)!.hwmMb.toFixed(1)} MB`);
} finally {
  await gw.close();
  await stop(fake);
  setup.cleanup();
}
