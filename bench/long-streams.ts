/**
 * The long-streams case: the fake answers every stream in 20 chunks 100 ms apart, and 1,000
 * streams run at once, through the gateway (its RSS sampled) and directly.
 */
import { join } from "node:path";
import { ROOT } from "./gateway-process.js";
import { bodyFor, type Target } from "./load.js";
import { CORES, firstJsonLine, sampleRss, spawnPinned } from "./proc.js";
import type { BenchResults } from "./report.js";
import type { StreamsResult, StreamsSpec } from "./streams-worker.js";

const WORKER = join(ROOT, "dist/bench/streams-worker.js");
export const LONG_STREAMS = { concurrency: 1000, chunks: 20, gapMs: 100 };

async function setShape(fakePort: number, chunks: number, gapMs: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${fakePort}/__bench/shape?chunks=${chunks}&gapMs=${gapMs}`, { method: "POST" });
  await res.arrayBuffer();
}

async function run(target: Target): Promise<StreamsResult> {
  const spec: StreamsSpec = { url: target.url, body: bodyFor(true), headers: target.headers, concurrency: LONG_STREAMS.concurrency };
  const child = spawnPinned(CORES.load, [WORKER, JSON.stringify(spec)]);
  const result = await firstJsonLine<StreamsResult>(child, "streams worker", 120_000);
  if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
  return result;
}

export async function measureLongStreams(gw: Target, direct: Target, fakePort: number, gatewayPid: number): Promise<BenchResults["longStreams"]> {
  await setShape(fakePort, LONG_STREAMS.chunks, LONG_STREAMS.gapMs);
  try {
    const rss = sampleRss(gatewayPid);
    const gateway = await run(gw);
    const peakRssMb = rss.stop();
    const ownMs = LONG_STREAMS.chunks * LONG_STREAMS.gapMs;
    return { concurrency: LONG_STREAMS.concurrency, ownMs, gateway: { ...gateway, peakRssMb }, direct: await run(direct) };
  } finally {
    await setShape(fakePort, 0, 0);
  }
}
