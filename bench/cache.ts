/**
 * `npm run bench -- --cache`: what a response-cache hit costs the gateway (docs/cache.md)
 * against what a bare Node pass-through proxy (bare-proxy.ts) spends on one round trip to the
 * upstream, the same chat request (non-streamed, 25 connections, instant upstream) at each
 * in turn: the gateway with the cache enabled and the bench key opted in (every request after
 * the first is a hit: no upstream call, a ledger row at cost 0), then the bare proxy, then (for
 * scale) the same gateway sending each request upstream (`Cache-Control: no-store`). The figure
 * is each process's CPU time per request (/proc, cpu.ts), the median of the rounds. Target: a
 * hit costs less gateway CPU than the bare proxy's round trip.
 */
import { HZ, processTicks } from "./cpu.js";
import { prepare, startGateway, type GatewayProcess } from "./gateway-process.js";
import { bodyFor, measure, type Case, type Target } from "./load.js";
import { median } from "./stats.js";

export interface CacheResult {
  hitRps: number[];
  bareRps: number[];
  hitCpuUs: number[];
  bareCpuUs: number[];
  /** The same gateway sending the request upstream (`Cache-Control: no-store`), for scale. */
  proxiedCpuUs: number[];
}

const HIT: Case = { id: "0ms 25c json cache hit", latencyMs: 0, connections: 25, stream: false, api: "chat" };
const ROUNDS = 3;
const log = (s: string) => process.stderr.write(`${s}\n`);

/** CPU µs per request of `pid` while `target` is under load. */
async function cpuPerRequest(target: Target, pid: number, timing: { warmupS: number; durationS: number }) {
  const ticks = processTicks(pid, false);
  const m = await measure(target, HIT, timing, pid);
  if (m.non2xx || m.errors || m.mismatches) throw new Error(`${target.name}: ${m.non2xx} non-2xx, ${m.errors} errors, ${m.mismatches} malformed`);
  const cpuS = (processTicks(pid, false) - ticks) / HZ;
  return { rps: m.rps, cpuUs: (cpuS * 1e6) / (m.rps * (timing.warmupS + timing.durationS)) };
}

/** One request through the gateway twice: the second must say `X-Gateway-Cache: hit`, or the case measures something else. */
async function warm(gw: GatewayProcess, key: string): Promise<void> {
  for (const expected of ["miss", "hit"]) {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: bodyFor(false),
    });
    await res.arrayBuffer();
    if (res.headers.get("x-gateway-cache") !== expected) throw new Error(`cache bench: expected ${expected}, got ${res.headers.get("x-gateway-cache")}`);
  }
}

export function cacheBudgetS(timing: { warmupS: number; durationS: number }): number {
  return ROUNDS * 3 * (timing.warmupS + timing.durationS) + 5;
}

export async function compareCache(
  fakePort: number,
  bare: { port: number; pid: number },
  timing: { warmupS: number; durationS: number },
): Promise<CacheResult> {
  const setup = prepare(fakePort, undefined, { cache: true });
  const r: CacheResult = { hitRps: [], bareRps: [], hitCpuUs: [], bareCpuUs: [], proxiedCpuUs: [] };
  const gw = await startGateway(setup);
  try {
    await warm(gw, setup.key);
    const gwTarget: Target = { name: "gateway", url: `${gw.url}/v1/chat/completions`, headers: { authorization: `Bearer ${setup.key}` } };
    const bareTarget: Target = { name: "bare", url: `http://127.0.0.1:${bare.port}/v1/chat/completions`, headers: { authorization: `Bearer ${setup.key}` } };
    const proxiedTarget: Target = { ...gwTarget, headers: { ...gwTarget.headers, "cache-control": "no-store" } };
    for (let i = 1; i <= ROUNDS; i++) {
      log(`cache round ${i}/${ROUNDS}: cache hits through the gateway, then the bare proxy's round trips...`);
      const hit = await cpuPerRequest(gwTarget, gw.pid, timing);
      const proxied = await cpuPerRequest(bareTarget, bare.pid, timing);
      r.hitRps.push(hit.rps);
      r.hitCpuUs.push(hit.cpuUs);
      r.bareRps.push(proxied.rps);
      r.bareCpuUs.push(proxied.cpuUs);
      r.proxiedCpuUs.push((await cpuPerRequest(proxiedTarget, gw.pid, timing)).cpuUs);
    }
    return r;
  } finally {
    await gw.close();
    setup.cleanup();
  }
}

export function renderCache(r: CacheResult): string {
  const us = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" / ");
  const hit = median(r.hitCpuUs);
  const bare = median(r.bareCpuUs);
  return [
    "Response cache hit vs a bare proxy round trip (chat, non-streamed, 25 connections, instant upstream):",
    `  req/s       gateway hit ${us(r.hitRps)}   bare proxy ${us(r.bareRps)}`,
    `  CPU µs/req  gateway hit ${us(r.hitCpuUs)}   bare proxy ${us(r.bareCpuUs)}   gateway to the upstream (no-store) ${us(r.proxiedCpuUs)}`,
    `  median: hit ${hit.toFixed(0)} µs vs bare ${bare.toFixed(0)} µs per request  ${hit < bare ? "PASS" : "MISS"} (target: a hit costs less gateway CPU than a bare proxy round trip)`,
  ].join("\n");
}
