/**
 * The PostgreSQL (+ Redis, when reachable) store as a benchmark case (issue "Run as a fleet"):
 * one `gateway serve` on a fresh PostgreSQL database of its own, the same fake upstream and
 * load as the SQLite cases, reported as req/s and as a ratio to the SQLite gateway's figure
 * for the same case. The database is dropped afterwards.
 * GATEWAY_BENCH_PG (default postgres://postgres@127.0.0.1:5432/postgres) and GATEWAY_BENCH_REDIS
 * (default redis://127.0.0.1:6379; "off" to leave Redis out) say where the services are.
 * `npm run bench -- --fleet` (compareFleet): only the issue-30 rows, one SQLite gateway and one
 * PostgreSQL + Redis gateway measured in alternating rounds at an instant upstream; the ratio is
 * the median of the rounds' ratios (each pair back to back, under the same load from elsewhere).
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import pg from "pg";
import { benchConfig, prepare, startGateway } from "./gateway-process.js";
import { measure, type Case, type Target, type TargetResult } from "./load.js";
import { median } from "./stats.js";

const ADMIN = process.env.GATEWAY_BENCH_PG ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = process.env.GATEWAY_BENCH_REDIS ?? "redis://127.0.0.1:6379";

export const FLEET_CASES: Case[] = [
  { id: "0ms 50c json", latencyMs: 0, connections: 50, stream: false },
  { id: "0ms 50c stream", latencyMs: 0, connections: 50, stream: true },
  { id: "50ms 50c json", latencyMs: 50, connections: 50, stream: false },
];

export interface FleetResult {
  store: string;
  /** ratio (--fleet): the median of each round's PostgreSQL ÷ SQLite, measured back to back under the same load. */
  cases: Array<{ id: string; rps: number; p50Ms: number; p99Ms: number; failures: number; sqliteRps: number | null; ratio?: number }>;
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN, connectionTimeoutMillis: 3_000 });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A fresh database with one funded key, and a gateway serving it; `close` drops them all. */
async function pgGateway(fakePort: number) {
  const name = `gwbench_${randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  process.env.GATEWAY_SECRET ??= randomBytes(32).toString("hex"); // required on PostgreSQL (docs/fleet.md)
  const setup = prepare(fakePort, url.toString());
  const redis = REDIS === "off" ? undefined : { url: REDIS, prefix: `gwbench:${name}:` };
  writeFileSync(setup.config, JSON.stringify({ ...benchConfig(fakePort), ...(redis && { redis }) }, null, 2));
  const gateway = await startGateway(setup);
  const target: Target = { name: "gateway", url: `${gateway.url}/v1/chat/completions`, headers: { authorization: `Bearer ${setup.key}` } };
  const close = async () => {
    await gateway.close();
    setup.cleanup();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
  return { store: redis ? "PostgreSQL + Redis" : "PostgreSQL", gateway, target, close };
}

const warm = async (gw: Target, pid: number) => {
  for (const stream of [false, true]) await measure(gw, { id: "warmup", latencyMs: 0, connections: 50, stream }, { warmupS: 0, durationS: 2 }, pid);
};

export async function measureFleet(
  fakePort: number,
  setLatency: (ms: number) => Promise<void>,
  timing: { warmupS: number; durationS: number },
  sqliteRps: (id: string) => number | null,
): Promise<FleetResult> {
  const pgw = await pgGateway(fakePort);
  try {
    await setLatency(0);
    await warm(pgw.target, pgw.gateway.pid);
    const cases: FleetResult["cases"] = [];
    for (const c of FLEET_CASES) {
      await setLatency(c.latencyMs);
      const m = await measure(pgw.target, c, timing, pgw.gateway.pid);
      cases.push({ id: c.id, rps: m.rps, p50Ms: m.p50Ms, p99Ms: m.p99Ms, failures: m.non2xx + m.errors + m.mismatches, sqliteRps: sqliteRps(c.id) });
    }
    await setLatency(0);
    return { store: pgw.store, cases };
  } finally {
    await pgw.close();
  }
}

/** Issue 30's fleet rows: PostgreSQL + Redis at least half of SQLite, JSON and streams, at an instant upstream. */
export function fleetTargets(r: FleetResult): TargetResult[] {
  return (["json", "stream"] as const).flatMap((kind) => {
    const c = r.cases.find((x) => x.id === `0ms 50c ${kind}`);
    if (!c?.sqliteRps) return [];
    const ratio = c.ratio ?? c.rps / c.sqliteRps;
    const value = `${(100 * ratio).toFixed(1)} % (${Math.round(c.rps)} / ${Math.round(c.sqliteRps)} req/s)`;
    return [
      {
        target: `fleet: one process on ${r.store} vs SQLite, instant upstream, 50 conns, ${kind}`,
        value,
        limit: ">= 50 %",
        pass: ratio >= 0.5 && c.failures === 0,
      },
    ];
  });
}

const ROUNDS = 3;

/**
 * `--fleet`: a SQLite gateway and a PostgreSQL + Redis gateway, both started once, measured in
 * ROUNDS alternating rounds per case (so load from elsewhere on the machine falls on both
 * alike); each figure is the median of its rounds.
 */
export async function compareFleet(fakePort: number, setLatency: (ms: number) => Promise<void>, timing: { warmupS: number; durationS: number }) {
  const setup = prepare(fakePort);
  const sqlite = await startGateway(setup);
  const lite: Target = { name: "gateway", url: `${sqlite.url}/v1/chat/completions`, headers: { authorization: `Bearer ${setup.key}` } };
  const pgw = await pgGateway(fakePort);
  try {
    await setLatency(0);
    await warm(lite, sqlite.pid);
    await warm(pgw.target, pgw.gateway.pid);
    const cases: FleetResult["cases"] = [];
    for (const c of FLEET_CASES.filter((x) => x.latencyMs === 0)) {
      const pgRounds: Awaited<ReturnType<typeof measure>>[] = [];
      const liteRps: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        liteRps.push((await measure(lite, c, timing, sqlite.pid)).rps);
        pgRounds.push(await measure(pgw.target, c, timing, pgw.gateway.pid));
        process.stderr.write(`  ${c.id} round ${i + 1}: SQLite ${Math.round(liteRps.at(-1)!)} req/s, ${pgw.store} ${Math.round(pgRounds.at(-1)!.rps)} req/s\n`);
      }
      const failures = pgRounds.reduce((n, m) => n + m.non2xx + m.errors + m.mismatches, 0);
      const mid = (f: (m: (typeof pgRounds)[number]) => number) => median(pgRounds.map(f));
      const ratio = median(pgRounds.map((m, i) => m.rps / liteRps[i]!));
      cases.push({ id: c.id, rps: mid((m) => m.rps), p50Ms: mid((m) => m.p50Ms), p99Ms: mid((m) => m.p99Ms), failures, sqliteRps: median(liteRps), ratio });
    }
    return { store: pgw.store, cases };
  } finally {
    await sqlite.close();
    setup.cleanup();
    await pgw.close();
  }
}

export function renderFleet(r: FleetResult): string {
  const rows = r.cases.map(
    (c) =>
      `| ${c.id} | ${Math.round(c.rps)} | ${c.sqliteRps ? `${(100 * (c.ratio ?? c.rps / c.sqliteRps)).toFixed(1)} %` : "-"} | ${c.p50Ms.toFixed(2)} / ${c.p99Ms.toFixed(2)} ms | ${c.failures} |`,
  );
  return [
    `${r.store} store (one gateway process):`,
    "",
    "| case | req/s | of the SQLite gateway | p50 / p99 | failures |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    ...fleetTargets(r).map((t) => `${t.target}: ${t.value} (target ${t.limit}) ${t.pass ? "PASS" : "MISS"}`),
  ].join("\n");
}
