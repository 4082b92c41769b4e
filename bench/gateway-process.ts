/**
 * The gateway under test, as users run it: `gateway serve` in its own process (pinned to
 * its own core), a realistic config pointing the openai provider at the fake upstream,
 * a key and credits made with the CLI, billing and the ledger on.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CORES, firstJsonLine, freePort, spawnPinned, stop } from "./proc.js";

/** dist/bench/*.js -> the repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The gateway's entry; bin/gateway.js as users run it (the serve bundle when built); GATEWAY_BENCH_CLI names another build's entry (read at each start), to compare two builds on one machine. */
const cliEntry = () => process.env.GATEWAY_BENCH_CLI ?? join(ROOT, "bin/gateway.js");

export interface BenchSetup {
  dir: string;
  config: string;
  db: string;
  key: string;
  cleanup(): void;
}

/** The fake's HTTP/2-over-TLS port and the CA that signed its certificate (fake-upstream.ts --tls). */
export interface TlsUpstream {
  tlsPort: number;
  caFile: string;
}

export function benchConfig(fakePort: number, tls?: TlsUpstream): Record<string, unknown> {
  const baseUrl = tls ? `https://127.0.0.1:${tls.tlsPort}/v1` : `http://127.0.0.1:${fakePort}/v1`;
  return {
    server: { host: "127.0.0.1", ...(tls && { upstream: { caFile: tls.caFile } }) },
    providers: { openai: { baseUrl, apiKey: "sk-bench-upstream-0000" } },
    models: [
      {
        id: "openai/gpt-4o-mini",
        pricing: { prompt: "0.15", completion: "0.6" },
        context_length: 128000,
        max_output: 16384,
        endpoints: [{ provider: "openai", model: "gpt-4o-mini" }],
      },
    ],
    // High enough never to trigger: the benchmark measures the path, not the limiter's 429s.
    limits: { key: { requests: 10_000_000, window: 60 }, ip: { requests: 10_000_000, window: 60 } },
  };
}

/** A `gateway` command run to its end; its stdout (a failure throws with its stderr). */
export function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [cliEntry(), ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`gateway ${args.slice(0, 2).join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/**
 * Temp dir with the config and a database (a SQLite file there, or the PostgreSQL URL given) holding one funded key;
 * with `cache`, the response cache enabled and the key opted in for any temperature (cache.ts).
 */
export function prepare(fakePort: number, database?: string, opts: { cache?: boolean; tls?: TlsUpstream; guardrails?: string } = {}): BenchSetup {
  const dir = mkdtempSync(join(tmpdir(), "gw-bench-"));
  const config = join(dir, "gateway.config.json");
  const db = database ?? join(dir, "gateway.db");
  writeFileSync(
    config,
    JSON.stringify(
      {
        ...benchConfig(fakePort, opts.tls),
        ...(opts.cache && { cache: { enabled: true } }),
        ...(opts.guardrails && { guardrails: { secrets: { mode: opts.guardrails } } }),
      },
      null,
      2,
    ),
  );
  const common = ["--config", config, "--db", db, "--json"];
  const cacheFlag = opts.cache ? ["--cache-nondeterministic"] : [];
  const created = JSON.parse(cli(["keys", "create", "--name", "bench", ...cacheFlag, ...common])) as { key: string };
  cli(["credits", "add", "1000000", ...common]);
  return { dir, config, db, key: created.key, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface GatewayProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** What it wrote to stderr: counted, not echoed (a disconnect can log a stack per request). */
  stderr: { internalErrors: number; tail: string };
  close(): Promise<void>;
}

export function serveArgs(setup: BenchSetup, port: number, nodeFlags: string[] = []): string[] {
  return [...nodeFlags, cliEntry(), "serve", "--port", String(port), "--config", setup.config, "--db", setup.db, "--json"];
}

/** Spawns `gateway serve` and resolves once it has printed its ready line. */
export async function startGateway(setup: BenchSetup, nodeFlags: string[] = []): Promise<GatewayProcess> {
  const port = await freePort();
  const child = spawnPinned(CORES.gateway, serveArgs(setup, port, nodeFlags), { cwd: setup.dir });
  const ready = await firstJsonLine<{ url: string }>(child, "gateway serve");
  // Its request log comes on stdout: read and dropped, as a log collector would read it.
  child.stdout?.resume();
  const stderr = { internalErrors: 0, tail: "" };
  child.stderr?.on("data", (d: Buffer) => {
    const text = d.toString();
    stderr.internalErrors += text.split("internal error").length - 1;
    stderr.tail = (stderr.tail + text).slice(-4000);
  });
  return { url: ready.url, pid: child.pid!, child, stderr, close: () => stop(child, "SIGINT") };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spawn to the first 200 from GET /v1/health/providers, in ms. */
async function readyOnce(setup: BenchSetup, nodeFlags: string[]): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawnPinned(CORES.gateway, serveArgs(setup, port, nodeFlags), { cwd: setup.dir });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`gateway serve exited (${child.exitCode}) while starting`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/v1/health/providers`);
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      if (performance.now() - t0 > 20_000) throw new Error("gateway serve not ready after 20 s");
      await sleep(2);
    }
  } finally {
    await stop(child, "SIGINT");
  }
}

/** `gateway serve` ready time: best (and all) of `runs` cold starts. */
export async function measureReady(setup: BenchSetup, runs = 3, nodeFlags: string[] = []): Promise<{ bestMs: number; allMs: number[] }> {
  const allMs: number[] = [];
  for (let i = 0; i < runs; i++) allMs.push(await readyOnce(setup, nodeFlags));
  return { bestMs: Math.min(...allMs), allMs };
}
