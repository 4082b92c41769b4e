/**
 * The MCP gateway's bench row (docs/mcp.md, docs/benchmarks.md): a tool call through the gateway
 * (`gateway serve` in its own process, pinned to its core) against the same call made straight to
 * the MCP server, both from 50 concurrent sessions of the SDK's client, each calling in a loop;
 * the added p50 is the difference. Then 1,000 sessions opened and held on the gateway (initialize
 * and a tools/list each), and its RSS growth. The MCP server is the SDK's (one session per
 * client, as the SDK serves them), in this process with the load, on the other core.
 *
 *   node dist/bench/mcp.js [--sessions 50] [--seconds 10] [--held 1000] [--profile <dir>: the gateway's CPU profile]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { cli, ROOT } from "./gateway-process.js";
import { CORES, firstJsonLine, freePort, memoryOf, pinSelf, spawnPinned, stop } from "./proc.js";
import { percentile, sortedCopy } from "./stats.js";

const { values: args } = parseArgs({
  options: {
    sessions: { type: "string", default: "50" },
    seconds: { type: "string", default: "10" },
    held: { type: "string", default: "1000" },
    profile: { type: "string" },
  },
});

/** The SDK's MCP server on 127.0.0.1: `echo`, a session per client. */
async function startMcpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server: Server = createServer((req, res) => {
    const id = req.headers["mcp-session-id"] as string | undefined;
    const known = id ? sessions.get(id) : undefined;
    if (known) return void known.handleRequest(req, res);
    if (id) return void res.writeHead(404).end();
    const mcp = new McpServer({ name: "bench", version: "1.0.0" });
    mcp.registerTool("echo", { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: "text", text }] }));
    const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (s) => void sessions.set(s, t),
    });
    void mcp.connect(t).then(() => t.handleRequest(req, res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
  return { url, close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

async function connect(url: string, key?: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  const headers = key ? { authorization: `Bearer ${key}` } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** `sessions` clients each calling `tool` in a loop for `seconds`; every call's latency in ms. */
async function load(
  url: string,
  tool: string,
  key: string | undefined,
  sessions: number,
  seconds: number,
  window?: (edge: "start" | "end") => void,
): Promise<number[]> {
  const clients = await Promise.all(Array.from({ length: sessions }, () => connect(url, key)));
  const warmEnd = performance.now() + 1_000;
  const end = warmEnd + seconds * 1000;
  const times: number[] = [];
  const edges = [setTimeout(() => window?.("start"), warmEnd - performance.now()), setTimeout(() => window?.("end"), end - performance.now())];
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await c.callTool({ name: tool, arguments: { text: "hello" } });
        if (r.isError) throw new Error(`the call failed: ${JSON.stringify(r.content)}`);
        if (t0 >= warmEnd) times.push(performance.now() - t0);
      }
    }),
  );
  edges.forEach(clearTimeout);
  await Promise.all(clients.map((c) => c.close()));
  return times;
}

const ms = (x: number) => `${x.toFixed(3)} ms`;

/** The process's CPU time so far (user + system) in ms, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** `count` sessions opened (initialize, then a tools/list each) 50 at a time, and held. */
async function holdSessions(url: string, key: string, count: number): Promise<Client[]> {
  const open: Client[] = [];
  while (open.length < count) {
    const batch = Math.min(50, count - open.length);
    open.push(...(await Promise.all(Array.from({ length: batch }, () => connect(url, key).then(async (c) => (await c.listTools(), c))))));
  }
  return open;
}

async function main(): Promise<void> {
  pinSelf(CORES.load);
  const [sessions, seconds, held] = [Number(args.sessions), Number(args.seconds), Number(args.held)];
  const upstream = await startMcpServer();
  const dir = mkdtempSync(join(tmpdir(), "gw-bench-mcp-"));
  const config = join(dir, "gateway.config.json");
  const limits = { key: { requests: 10_000_000, window: 60 }, ip: { requests: 10_000_000, window: 60 } };
  writeFileSync(config, JSON.stringify({ server: { host: "127.0.0.1" }, mcp: { servers: { bench: { url: upstream.url } } }, limits }));
  const common = ["--config", config, "--db", join(dir, "gateway.db"), "--json"];
  const key = (JSON.parse(cli(["keys", "create", "--name", "bench", "--mcp", "bench:*", ...common])) as { key: string }).key;
  const port = await freePort();
  const flags = args.profile ? ["--cpu-prof", `--cpu-prof-dir=${args.profile}`] : [];
  const child = spawnPinned(CORES.gateway, [...flags, join(ROOT, "dist/src/cli/main.js"), "serve", "--port", String(port), ...common], { cwd: dir });
  const { url } = await firstJsonLine<{ url: string }>(child, "gateway serve");
  child.stdout?.resume();
  try {
    const direct = sortedCopy(await load(upstream.url, "echo", undefined, sessions, seconds));
    const cpu = { start: 0, end: 0 };
    const via = sortedCopy(await load(`${url}/mcp`, "bench__echo", key, sessions, seconds, (edge) => (cpu[edge] = cpuMs(child.pid!))));
    const cpuPerCall = ((cpu.end - cpu.start) * 1000) / via.length;
    const [d50, v50] = [percentile(direct, 50), percentile(via, 50)];
    console.log(
      `MCP tool call, ${sessions} concurrent sessions, ${seconds} s each (load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}):`,
    );
    console.log(`  direct      p50 ${ms(d50)}  p99 ${ms(percentile(direct, 99))}  calls ${direct.length}`);
    console.log(`  via gateway p50 ${ms(v50)}  p99 ${ms(percentile(via, 99))}  calls ${via.length}`);
    console.log(`  added p50   ${ms(v50 - d50)} (target ≤ 1 ms); gateway CPU per call ${cpuPerCall.toFixed(0)} µs (in the measured window)`);
    await Promise.all((await holdSessions(`${url}/mcp`, key, 50)).map((c) => c.close())); // the path warm before the baseline
    const before = memoryOf(child.pid!)?.rssMb ?? NaN;
    const open = await holdSessions(`${url}/mcp`, key, held);
    await new Promise((r) => setTimeout(r, 1_000));
    const after = memoryOf(child.pid!)?.rssMb ?? NaN;
    console.log(
      `  ${held} open sessions: gateway RSS ${before.toFixed(1)} MB -> ${after.toFixed(1)} MB, growth ${(after - before).toFixed(1)} MB (target ≤ 50 MB)`,
    );
    await Promise.all(open.map((c) => c.close()));
  } finally {
    await stop(child, "SIGINT");
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
