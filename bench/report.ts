/**
 * Results: the per-case comparison, the targets (PASS/MISS) from issue 6, the terminal
 * table and the JSON file.
 */
import type { MessagesResult } from "./messages.js";
import type { CacheResult } from "./cache.js";
import type { FleetResult } from "./fleet.js";
import { renderStreamCpu, type StreamCpuRow } from "./stream-cpu.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { TtfbResult } from "./check.js";
import type { Case, Measurement, TargetResult } from "./load.js";
import { renderStreams, streamTargets, type StreamRowResult } from "./long-streams.js";
import { renderObservability, type ObservabilityResult } from "./observability.js";

export interface CaseResult {
  case: Case;
  gateway: Measurement;
  direct: Measurement;
  /** The bare Node pass-through proxy (bare-proxy.ts): the ceiling for a Node gateway. */
  bare: Measurement;
  /** gateway req/s ÷ direct req/s. */
  throughputRatio: number;
  /** gateway req/s ÷ bare proxy req/s. */
  bareRatio: number;
  addedP50Ms: number;
  addedP99Ms: number;
  /** Errors, non-2xx, body mismatches and sampled shape problems; any makes the case INVALID. */
  problems: string[];
  /** Share of all cores other processes used during the case (null without /proc). */
  otherCpuPct?: number | null;
  /** What the fake saw during the gateway's runs (warmup included): few connections = reuse. */
  upstream?: { requests: number; connections: number };
}

export interface BenchResults {
  startedAt: string;
  /** otherCpuPct: share of all cores other processes used during the cases; other work skews every number. */
  machine: { cpus: number; node: string; pinned: boolean; layout: string; otherCpuPct: number | null };
  timing: { warmupS: number; durationS: number };
  cases: CaseResult[];
  ttfb: { gateway: TtfbResult; direct: TtfbResult; addedP50Ms: number };
  /** CPU time per streamed request before the first chunk and per chunk, gateway vs bare proxy (stream-cpu.ts). */
  streamCpu: StreamCpuRow;
  ready: { bestMs: number; allMs: number[] };
  rss: { idleMb: number; peakUnderLoadMb: number; hwmMb: number | null; afterRunsMb: number[]; growthMb: number };
  /** 1,000 and 10,000 concurrent streams of 20 chunks 1 s apart, gateway vs direct (long-streams.ts). */
  streams: StreamRowResult[];
  /** The same load on the PostgreSQL (+ Redis) store, one process (bench/fleet.ts). */
  fleet: FleetResult;
  /** `[gateway] ... internal error` lines the gateway logged (e.g. on client disconnects). */
  gatewayLog: { internalErrors: number; tail: string };
  targets: TargetResult[];
  /** Metrics and the request log on vs off (observability.ts). */
  observability?: ObservabilityResult[];
  /** POST /v1/messages vs chat completions, streamed (messages.ts). */
  messages?: MessagesResult;
  /** A response-cache hit vs a bare proxy round trip (cache.ts). */
  cache?: CacheResult;
  valid: boolean;
  totalS: number;
}

export function compare(c: Case, gateway: Measurement, direct: Measurement, bare: Measurement, sampled: string[]): CaseResult {
  const problems = [...sampled];
  for (const [name, m] of [
    ["gateway", gateway],
    ["direct", direct],
    ["bare", bare],
  ] as const) {
    if (m.non2xx) problems.push(`${name}: ${m.non2xx} non-2xx`);
    if (m.errors) problems.push(`${name}: ${m.errors} errors (${m.timeouts} timeouts)`);
    if (m.mismatches) problems.push(`${name}: ${m.mismatches} malformed bodies`);
    if (m.requests === 0) problems.push(`${name}: no successful responses`);
  }
  return {
    case: c,
    gateway,
    direct,
    bare,
    problems,
    throughputRatio: gateway.rps / direct.rps,
    bareRatio: gateway.rps / bare.rps,
    addedP50Ms: gateway.p50Ms - direct.p50Ms,
    addedP99Ms: gateway.p99Ms - direct.p99Ms,
  };
}

/** Above this share of the machine used by other processes, the run is flagged as noisy. */
export const OTHER_CPU_WARN_PCT = 5;

/** RSS may wobble with GC; more than this between the first and last repeated run counts as growth. */
export const RSS_GROWTH_TOLERANCE_MB = 10;

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const ms = (x: number) => `${x.toFixed(3)} ms`;

/** The targets of issue 16 ("Lean core"), and issue 30's stream rows. */
export function evaluate(r: Omit<BenchResults, "targets" | "valid" | "totalS" | "gatewayLog">): TargetResult[] {
  const find = (latencyMs: number, connections: number, stream: boolean) =>
    r.cases.find((c) => c.case.latencyMs === latencyMs && c.case.connections === connections && c.case.stream === stream);
  const targets: TargetResult[] = [];
  const add = (target: string, value: string, limit: string, pass: boolean) => targets.push({ target, value, limit, pass });
  for (const stream of [false, true]) {
    const kind = stream ? "streamed" : "non-streamed";
    const instant = find(0, 50, stream);
    // Issue 30's single-process target: half the bare proxy at 50 connections (issue 16 asked 70 %).
    if (instant) add(`instant upstream, 50 conns, ${kind}: throughput vs bare proxy`, pct(instant.bareRatio), ">= 50 %", instant.bareRatio >= 0.5);
    const one = find(0, 1, stream);
    if (one) {
      add(`1 conn (instant upstream), ${kind}: added p50`, ms(one.addedP50Ms), "<= 0.3 ms", one.addedP50Ms <= 0.3);
      add(`1 conn (instant upstream), ${kind}: added p99`, ms(one.addedP99Ms), "<= 1.5 ms", one.addedP99Ms <= 1.5);
    }
    const slow = find(50, 50, stream);
    if (slow) add(`50 ms upstream, 50 conns, ${kind}: throughput vs direct`, pct(slow.throughputRatio), ">= 97 %", slow.throughputRatio >= 0.97);
  }
  add("streaming, 1 conn: added TTFB (p50)", ms(r.ttfb.addedP50Ms), "<= 1 ms", r.ttfb.addedP50Ms <= 1);
  targets.push(...streamTargets(r.streams));
  add("gateway RSS idle after start", `${f(r.rss.idleMb, 1)} MB`, "<= 60 MB", r.rss.idleMb <= 60);
  add("gateway peak RSS under 50-conn load", `${r.rss.peakUnderLoadMb.toFixed(1)} MB`, "<= 120 MB", r.rss.peakUnderLoadMb <= 120);
  add(
    "RSS growth across repeated runs",
    `${r.rss.growthMb >= 0 ? "+" : ""}${r.rss.growthMb.toFixed(1)} MB`,
    `<= ${RSS_GROWTH_TOLERANCE_MB} MB`,
    r.rss.growthMb <= RSS_GROWTH_TOLERANCE_MB,
  );
  add("`gateway serve` ready (best of 3)", `${(r.ready.bestMs / 1000).toFixed(3)} s`, "<= 0.3 s", r.ready.bestMs <= 300);
  return targets;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  return rows.map((row) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")).join("\n");
}

const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");

export function renderTargets(targets: TargetResult[]): string {
  return table([["target", "value", "limit", ""], ...targets.map((t) => [t.target, t.value, t.limit, t.pass ? "PASS" : "MISS"])]);
}

export function render(r: BenchResults): string {
  const cases = table([
    [
      "case",
      "gw req/s",
      "gw p50",
      "gw p99",
      "bare req/s",
      "direct req/s",
      "d p50",
      "d p99",
      "gw/direct",
      "gw/bare",
      "bare/direct",
      "+p50 ms",
      "+p99 ms",
      "non2xx/err",
      "gw RSS MB",
      "other CPU",
      "status",
    ],
    ...r.cases.map((c) => [
      c.case.id,
      f(c.gateway.rps, 0),
      f(c.gateway.p50Ms),
      f(c.gateway.p99Ms),
      f(c.bare.rps, 0),
      f(c.direct.rps, 0),
      f(c.direct.p50Ms),
      f(c.direct.p99Ms),
      pct(c.throughputRatio),
      pct(c.bareRatio),
      pct(c.bare.rps / c.direct.rps),
      f(c.addedP50Ms, 3),
      f(c.addedP99Ms, 3),
      `${c.gateway.non2xx + c.direct.non2xx + c.bare.non2xx}/${c.gateway.errors + c.direct.errors + c.bare.errors + c.gateway.mismatches + c.direct.mismatches + c.bare.mismatches}`,
      f(c.gateway.gatewayPeakRssMb ?? NaN, 1),
      `${f(c.otherCpuPct ?? NaN, 0)} %`,
      c.problems.length ? "INVALID" : "ok",
    ]),
  ]);
  const problems = r.cases.flatMap((c) => c.problems.map((p) => `  ${c.case.id}: ${p}`));
  // Keep-alive to the upstream: a handful of new connections per connection of load at most.
  const churn = r.cases
    .filter((c) => c.upstream && c.upstream.connections > 4 * c.case.connections + 10)
    .map((c) => `  ${c.case.id}: the gateway opened ${c.upstream!.connections} upstream connections for ${c.upstream!.requests} requests`);
  const targets = renderTargets(r.targets);
  const other = r.machine.otherCpuPct ?? 0;
  const busy =
    other > OTHER_CPU_WARN_PCT ? `\nWARNING: other processes used ${other.toFixed(0)} % of the machine during the cases: these numbers are skewed.` : "";
  return [
    `Latencies in ms (p50/p99 per request). ${r.timing.warmupS} s warmup + ${r.timing.durationS} s per measurement. ${r.machine.layout}${busy}`,
    "",
    cases,
    ...(problems.length ? ["", "INVALID runs:", ...problems] : []),
    ...(churn.length ? ["", "Upstream connection churn (keep-alive not reused):", ...churn] : []),
    "",
    `Streaming TTFB, 1 conn, ${r.ttfb.gateway.samples} sequential requests: gateway p50 ${f(r.ttfb.gateway.p50Ms, 3)} ms (p99 ${f(r.ttfb.gateway.p99Ms, 3)}), ` +
      `direct p50 ${f(r.ttfb.direct.p50Ms, 3)} ms (p99 ${f(r.ttfb.direct.p99Ms, 3)}), added ${f(r.ttfb.addedP50Ms, 3)} ms`,
    renderStreamCpu(r.streamCpu),
    `gateway serve ready: ${r.ready.allMs.map((x) => `${x.toFixed(0)} ms`).join(", ")} (best ${r.ready.bestMs.toFixed(0)} ms)`,
    renderStreams(r.streams),
    `gateway RSS: idle after start ${f(r.rss.idleMb, 1)} MB, peak under 50-conn load ${f(r.rss.peakUnderLoadMb, 1)} MB, VmHWM ${f(r.rss.hwmMb ?? NaN, 1)} MB, ` +
      `after repeated runs ${r.rss.afterRunsMb.map((x) => x.toFixed(1)).join(" -> ")} MB`,
    ...(r.observability ? [renderObservability(r.observability)] : []),
    ...(r.gatewayLog.internalErrors ? [`gateway logged ${r.gatewayLog.internalErrors} internal errors on stderr (see gatewayLog.tail in the JSON)`] : []),
    "",
    targets,
    "",
    `${r.valid ? "All runs valid." : "Some runs are INVALID (see above): their numbers do not count."} Total time ${r.totalS.toFixed(1)} s.`,
  ].join("\n");
}

export function writeJson(file: string, r: BenchResults): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
}
