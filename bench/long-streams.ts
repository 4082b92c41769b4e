/**
 * The stream rows of issue 30: N concurrent streams of 20 chunks one second apart (the fake's
 * shape, POST /__bench/shape), their starts spread over a ramp, through one gateway process on
 * SQLite and the same streams straight to the fake. The gateway reaches the fake over HTTP/2 and
 * TLS (as it reaches a real provider; 10,000 streams over HTTP/1.1 would be 20,000 sockets); the
 * load generator and the direct run speak plain HTTP/1.1, as clients do. Each row runs on a fresh
 * gateway whose idle RSS is taken first: RSS a process once reached stays with it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HZ, meterForeignCpu, processTicks } from "./cpu.js";
import { prepare, ROOT, startGateway, type TlsUpstream } from "./gateway-process.js";
import { bodyFor, type Target, type TargetResult } from "./load.js";
import { CORES, firstJsonLine, memoryOf, sampleRss, spawnPinned } from "./proc.js";
import type { StreamsResult, StreamsSpec } from "./streams-worker.js";

const WORKER = join(ROOT, "dist/bench/streams-worker.js");
export const STREAM_SHAPE = { chunks: 20, gapMs: 1000 };

export interface StreamRow {
  streams: number;
  /** Starts spread over this long: all streams are open together for (20 s − ramp). */
  rampMs: number;
  rssLimitMb: number;
  /** (peak − idle) ÷ streams, KB; checked on the 10,000 row. */
  perStreamLimitKb?: number;
}

export const STREAM_ROWS: StreamRow[] = [
  { streams: 1_000, rampMs: 1_000, rssLimitMb: 150 },
  { streams: 10_000, rampMs: 10_000, rssLimitMb: 600, perStreamLimitKb: 50 },
];

export interface StreamRowResult extends StreamRow {
  ownMs: number;
  idleMb: number;
  peakRssMb: number;
  /** TLS connections the fake accepted during the gateway's run (HTTP/2: ~streams ÷ 100). */
  upstreamConnections: number;
  /** Connects dropped on a full listen queue during the gateway's run (machine-wide; null without /proc). */
  listenOverflows: number | null;
  /** The gateway's CPU time during its run (s), and the share of the machine other processes used meanwhile (%). */
  gatewayCpuS: number;
  otherCpuPct: number | null;
  gateway: StreamsResult;
  direct: StreamsResult;
}

/** Seconds the rows take (both targets, start-up, a gateway a few seconds behind), for the bench's estimate. */
export const streamRowsBudgetS = (): number => STREAM_ROWS.reduce((s, r) => s + 2 * (r.rampMs / 1000 + 30) + 8, 0);

async function fakePost(port: number, path: string): Promise<{ connections?: number }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: path.startsWith("/__bench/stats") ? "GET" : "POST" });
  return (await res.json()) as { connections?: number };
}

/**
 * TcpExt ListenOverflows from /proc/net/netstat: a server that falls behind accepting fills its
 * queue (4096 here), the kernel drops the handshake's last ACK, and the client may end with
 * ECONNRESET. Machine-wide: another process's full queue counts too.
 */
function listenOverflows(): number | null {
  try {
    const lines = readFileSync("/proc/net/netstat", "utf8").split("\n");
    const at = lines.findIndex((l) => l.startsWith("TcpExt:"));
    const value = Number(lines[at + 1]!.split(/\s+/)[lines[at]!.split(/\s+/).indexOf("ListenOverflows")]);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

async function run(target: Target, row: StreamRow): Promise<StreamsResult> {
  const spec: StreamsSpec = { url: target.url, body: bodyFor(true), headers: target.headers, concurrency: row.streams, rampMs: row.rampMs };
  const child = spawnPinned(CORES.load, [WORKER, JSON.stringify(spec)]);
  const result = await firstJsonLine<StreamsResult>(child, "streams worker", row.rampMs + STREAM_SHAPE.chunks * STREAM_SHAPE.gapMs + 90_000);
  if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
  return result;
}

async function measureRow(row: StreamRow, fakePort: number, tls: TlsUpstream, fakePid?: number): Promise<StreamRowResult> {
  const setup = prepare(fakePort, undefined, { tls });
  try {
    const gateway = await startGateway(setup);
    const auth = { authorization: `Bearer ${setup.key}` };
    let g: StreamsResult, peakRssMb: number, idleMb: number, upstreamConnections: number, overflows: number | null;
    let gatewayCpuS: number, otherCpuPct: number | null;
    try {
      await new Promise((r) => setTimeout(r, 1000)); // settled after start
      idleMb = memoryOf(gateway.pid)?.rssMb ?? NaN;
      const before = (await fakePost(fakePort, "/__bench/stats")).connections ?? 0;
      const rss = sampleRss(gateway.pid, 100);
      const overflows0 = listenOverflows();
      const other = meterForeignCpu(() => [gateway.pid, ...(fakePid ? [fakePid] : [])]);
      const ticks0 = processTicks(gateway.pid, false);
      g = await run({ name: "gateway", url: `${gateway.url}/v1/chat/completions`, headers: auth }, row);
      peakRssMb = rss.stop();
      otherCpuPct = other?.stop() ?? null;
      gatewayCpuS = (processTicks(gateway.pid, false) - ticks0) / HZ;
      const overflows1 = listenOverflows();
      overflows = overflows0 === null || overflows1 === null ? null : overflows1 - overflows0;
      upstreamConnections = ((await fakePost(fakePort, "/__bench/stats")).connections ?? 0) - before;
    } finally {
      await gateway.close();
    }
    const direct = await run({ name: "direct", url: `http://127.0.0.1:${fakePort}/v1/chat/completions`, headers: auth }, row);
    const ownMs = STREAM_SHAPE.chunks * STREAM_SHAPE.gapMs;
    return { ...row, ownMs, idleMb, peakRssMb, upstreamConnections, listenOverflows: overflows, gatewayCpuS, otherCpuPct, gateway: g, direct };
  } finally {
    setup.cleanup();
  }
}

export async function measureStreamRows(fakePort: number, tls: TlsUpstream, log: (s: string) => void, fakePid?: number): Promise<StreamRowResult[]> {
  await fakePost(fakePort, `/__bench/shape?chunks=${STREAM_SHAPE.chunks}&gapMs=${STREAM_SHAPE.gapMs}`);
  try {
    const rows: StreamRowResult[] = [];
    for (const row of STREAM_ROWS) {
      log(`${row.streams} streams (${STREAM_SHAPE.chunks} chunks ${STREAM_SHAPE.gapMs} ms apart, starts over ${row.rampMs / 1000} s), gateway then direct...`);
      rows.push(await measureRow(row, fakePort, tls, fakePid));
    }
    return rows;
  } finally {
    await fakePost(fakePort, "/__bench/shape?chunks=0&gapMs=0");
  }
}

const n = (x: number) => x.toLocaleString("en-US");
const f = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "-");
export const p50Ratio = (r: StreamRowResult): number => r.gateway.p50Ms / r.direct.p50Ms - 1;
export const perStreamKb = (r: StreamRowResult): number => ((r.peakRssMb - r.idleMb) * 1024) / r.streams;

export function streamTargets(rows: StreamRowResult[]): TargetResult[] {
  const out: TargetResult[] = [];
  const add = (target: string, value: string, limit: string, pass: boolean) => out.push({ target, value, limit, pass });
  for (const r of rows) {
    const name = `${n(r.streams)} streams of 20 s`;
    const all = r.gateway.ok === r.streams && r.direct.ok === r.streams;
    add(`${name}: completed (gateway, direct)`, `${n(r.gateway.ok)}, ${n(r.direct.ok)} of ${n(r.streams)}`, "all", all);
    const ratio = p50Ratio(r);
    add(`${name}: p50 duration vs direct`, `${ratio >= 0 ? "+" : ""}${f(ratio * 100, 1)} %`, "<= +5 %", all && ratio <= 0.05);
    add(`${name}: gateway peak RSS`, `${f(r.peakRssMb, 1)} MB`, `<= ${r.rssLimitMb} MB`, r.peakRssMb <= r.rssLimitMb);
    if (r.perStreamLimitKb !== undefined)
      add(`${name}: RSS per open stream above idle`, `${f(perStreamKb(r), 1)} KB`, `<= ${r.perStreamLimitKb} KB`, perStreamKb(r) <= r.perStreamLimitKb);
  }
  return out;
}

export function renderStreams(rows: StreamRowResult[]): string {
  const line = (r: StreamRowResult) => {
    const side = (s: StreamsResult) =>
      `p50 ${f(s.p50Ms)} ms p99 ${f(s.p99Ms)} max ${f(s.maxMs)}, ok ${n(s.ok)} failed ${n(s.failed)}${s.failed ? ` ${JSON.stringify(s.failures)}` : ""}, peak open ${n(s.peakOpen)}`;
    return (
      `${n(r.streams)} streams (starts over ${r.rampMs / 1000} s, each ${r.ownMs / 1000} s): gateway ${side(r.gateway)}; direct ${side(r.direct)}\n` +
      `  gateway RSS idle ${f(r.idleMb, 1)} MB, peak ${f(r.peakRssMb, 1)} MB (${f(perStreamKb(r), 1)} KB per stream above idle); ` +
      `gateway CPU ${f(r.gatewayCpuS, 1)} s (${f((r.gatewayCpuS * 1000) / r.streams, 2)} ms per stream), other processes ${f(r.otherCpuPct ?? NaN)} % of the machine;\n  ` +
      `${n(r.upstreamConnections)} upstream connections (HTTP/2 over TLS); ` +
      `connects dropped on a full listen queue during the gateway's run (machine-wide): ${r.listenOverflows ?? "-"}`
    );
  };
  // As report.ts's OTHER_CPU_WARN_PCT: a run that shared the machine is not the gateway's figure.
  const busy = rows.filter((r) => (r.otherCpuPct ?? 0) > 5).map((r) => `${n(r.streams)} (${f(r.otherCpuPct!)} %)`);
  const warning = busy.length ? [`WARNING: other processes used the machine during the gateway's run of ${busy.join(", ")}: p50 is skewed.`] : [];
  return [...rows.map(line), ...warning].join("\n");
}
