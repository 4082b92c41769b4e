/**
 * CPU profile of the gateway under the instant-upstream, 50-connection, non-streamed load:
 *   node dist/bench/profile.js [--duration 10] [--connections 50] [--stream] [--messages] [--startup] [--dir /tmp/prof]
 * runs `node --cpu-prof` for `gateway serve`, stops it with SIGINT (V8 writes the profile on
 * exit) and prints the summary. --startup profiles only spawn-to-ready (no load); --off runs
 * with metrics and the request log switched off; --messages sends the same request to POST /v1/messages;
 * --cache enables the response cache for the bench key (every request after the first is a hit).
 * Profiles stay out of the repo (*.cpuprofile is ignored).
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { renderSummary, summarise } from "./cpuprofile-summary.js";
import { prepare, ROOT, startGateway } from "./gateway-process.js";
import { measure } from "./load.js";
import { observabilityOff } from "./observability.js";
import { CORES, firstJsonLine, pinSelf, spawnPinned, stop } from "./proc.js";

const { values: opts } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    dir: { type: "string", default: "/tmp/prof" },
    stream: { type: "boolean", default: false },
    startup: { type: "boolean", default: false },
    connections: { type: "string", default: "50" },
    // Metrics and the request log switched off (observability.ts's "off" side).
    off: { type: "boolean", default: false },
    messages: { type: "boolean", default: false },
    cache: { type: "boolean", default: false },
  },
});

function newest(dir: string, since: number): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= since);
  const file = files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!file) throw new Error(`no .cpuprofile written to ${dir}`);
  return file;
}

async function main(): Promise<void> {
  mkdirSync(opts.dir, { recursive: true });
  pinSelf(CORES.load);
  const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js")]);
  const { port } = await firstJsonLine<{ port: number }>(fake, "fake upstream");
  const setup = opts.off ? observabilityOff(port) : prepare(port, undefined, { cache: opts.cache });
  const started = Date.now();
  try {
    const gateway = await startGateway(setup, ["--cpu-prof", `--cpu-prof-dir=${opts.dir}`]);
    if (!opts.startup) await load(gateway.url, setup.key, gateway.pid);
    await gateway.close();
    const file = newest(opts.dir, started);
    process.stdout.write(`profile: ${file}\n\n${renderSummary(summarise(JSON.parse(readFileSync(file, "utf8"))), 20)}\n`);
  } finally {
    await stop(fake);
    setup.cleanup();
  }
}

async function load(url: string, key: string, pid: number): Promise<void> {
  const path = opts.messages ? "/v1/messages" : "/v1/chat/completions";
  const target = { name: "gateway" as const, url: `${url}${path}`, headers: { authorization: `Bearer ${key}` } };
  const m = await measure(
    target,
    { id: "profile", latencyMs: 0, connections: Number(opts.connections), stream: opts.stream, api: opts.messages ? "messages" : "chat" },
    { warmupS: 1, durationS: Number(opts.duration) },
    pid,
  );
  process.stdout.write(`load: ${m.rps.toFixed(0)} req/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms, non2xx ${m.non2xx}, errors ${m.errors}\n`);
}

await main();
