/**
 * The PostgreSQL (+ Redis, when reachable) store as a benchmark case (issue "Run as a fleet"):
 * one `gateway serve` on a fresh PostgreSQL database of its own, the same fake upstream and
 * load as the SQLite cases, reported as req/s and as a ratio to the SQLite gateway's figure
 * for the same case. The database is dropped afterwards.
 * GATEWAY_BENCH_PG (default postgres://postgres@127.0.0.1:5432/postgres) and GATEWAY_BENCH_REDIS
 * (default redis://127.0.0.1:6379; "off" to leave Redis out) say where the services are.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import pg from "pg";
import { benchConfig, prepare, startGateway } from "./gateway-process.js";
import { measure, type Case, type Target } from "./load.js";

const ADMIN = process.env.GATEWAY_BENCH_PG ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = process.env.GATEWAY_BENCH_REDIS ?? "redis://127.0.0.1:6379";

export const FLEET_CASES: Case[] = [
  { id: "0ms 50c json", latencyMs: 0, connections: 50, stream: false },
  { id: "0ms 50c stream", latencyMs: 0, connections: 50, stream: true },
  { id: "50ms 50c json", latencyMs: 50, connections: 50, stream: false },
];

export interface FleetResult {
  store: string;
  cases: Array<{ id: string; rps: number; p50Ms: number; p99Ms: number; failures: number; sqliteRps: number | null }>;
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

export async function measureFleet(
  fakePort: number,
  setLatency: (ms: number) => Promise<void>,
  timing: { warmupS: number; durationS: number },
  sqliteRps: (id: string) => number | null,
): Promise<FleetResult> {
  const name = `gwbench_${randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  process.env.GATEWAY_SECRET ??= randomBytes(32).toString("hex"); // required on PostgreSQL (docs/fleet.md)
  const setup = prepare(fakePort, url.toString());
  const redis = REDIS === "off" ? undefined : { url: REDIS, prefix: `gwbench:${name}:` };
  writeFileSync(setup.config, JSON.stringify({ ...benchConfig(fakePort), ...(redis && { redis }) }, null, 2));
  const gateway = await startGateway(setup);
  try {
    const gw: Target = { name: "gateway", url: `${gateway.url}/v1/chat/completions`, headers: { authorization: `Bearer ${setup.key}` } };
    await setLatency(0);
    for (const stream of [false, true]) await measure(gw, { id: "warmup", latencyMs: 0, connections: 50, stream }, { warmupS: 0, durationS: 2 }, gateway.pid);
    const cases: FleetResult["cases"] = [];
    for (const c of FLEET_CASES) {
      await setLatency(c.latencyMs);
      const m = await measure(gw, c, timing, gateway.pid);
      cases.push({ id: c.id, rps: m.rps, p50Ms: m.p50Ms, p99Ms: m.p99Ms, failures: m.non2xx + m.errors + m.mismatches, sqliteRps: sqliteRps(c.id) });
    }
    await setLatency(0);
    return { store: redis ? "PostgreSQL + Redis" : "PostgreSQL", cases };
  } finally {
    await gateway.close();
    setup.cleanup();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

export function renderFleet(r: FleetResult): string {
  const rows = r.cases.map(
    (c) =>
      `| ${c.id} | ${Math.round(c.rps)} | ${c.sqliteRps ? `${((100 * c.rps) / c.sqliteRps).toFixed(1)} %` : "-"} | ${c.p50Ms.toFixed(2)} / ${c.p99Ms.toFixed(2)} ms | ${c.failures} |`,
  );
  return [
    `${r.store} store (one gateway process):`,
    "",
    "| case | req/s | of the SQLite gateway | p50 / p99 | failures |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
