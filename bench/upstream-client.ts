/**
 * Issue 30's "compare undici's dispatcher with node:http's Agent for this workload": the
 * gateway's upstream call alone, against the fake upstream (its own process), at 50 requests
 * in flight, JSON and streamed. Each client reads the whole body (as the gateway does) and
 * the figure is this process's CPU time per request (user + system), the steady figure on a
 * shared machine; req/s is printed beside it. Rounds alternate the clients so both see the
 * same machine.
 *   node dist/bench/upstream-client.js [--requests 20000] [--rounds 3] [--inflight 50]
 * The result and the choice it made are in docs/benchmarks.md ("Upstream client").
 */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Agent as UndiciAgent, request as undiciRequest } from "undici";
import { ROOT } from "./gateway-process.js";
import { firstJsonLine, spawnPinned, stop, CORES, pinSelf } from "./proc.js";

const { values: opts } = parseArgs({
  options: {
    requests: { type: "string", default: "20000" },
    rounds: { type: "string", default: "3" },
    inflight: { type: "string", default: "50" },
  },
});
const REQUESTS = Number(opts.requests);
const INFLIGHT = Number(opts.inflight);

type Call = (body: string) => Promise<number>;

const bodyFor = (stream: boolean) => JSON.stringify({ model: "gpt-4o-mini", stream, messages: [{ role: "user", content: "Say hello for the benchmark." }] });
const HEADERS = { "content-type": "application/json", authorization: "Bearer sk-bench" };

/** undici as the gateway uses it (src/upstream/upstream.ts): request() on one Agent. */
function undiciClient(url: string): Call {
  const dispatcher = new UndiciAgent({ keepAliveTimeout: 60_000, connections: null });
  return async (body) => {
    const res = await undiciRequest(url, { method: "POST", headers: HEADERS, body, dispatcher });
    let n = 0;
    for await (const chunk of res.body) n += (chunk as Buffer).length;
    return n;
  };
}

/** node:http with a keep-alive Agent and no socket cap (what bench/bare-proxy.ts uses). */
function nodeHttpClient(url: string): Call {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const u = new URL(url);
  return (body) =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { ...HEADERS, "content-length": Buffer.byteLength(body) }, agent },
        (res) => {
          let n = 0;
          res.on("data", (c: Buffer) => (n += c.length));
          res.on("end", () => resolve(n));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
}

async function run(call: Call, body: string, total: number): Promise<{ cpuUs: number; rps: number }> {
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const worker = async () => {
    while (next++ < total) if ((await call(body)) === 0) throw new Error("empty answer");
  };
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
  const cpu = process.cpuUsage(cpu0);
  const s = (performance.now() - t0) / 1000;
  return { cpuUs: (cpu.user + cpu.system) / total, rps: total / s };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

pinSelf(CORES.gateway);
const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js")]);
try {
  const port = (await firstJsonLine<{ port: number }>(fake, "fake upstream")).port;
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  const clients: Array<[string, Call]> = [
    ["undici", undiciClient(url)],
    ["node:http", nodeHttpClient(url)],
  ];
  for (const stream of [false, true]) {
    const body = bodyFor(stream);
    const seen = new Map<string, { cpuUs: number[]; rps: number[] }>();
    for (const [, call] of clients) await run(call, body, 2000); // warm-up: JIT and sockets
    for (let round = 0; round < Number(opts.rounds); round++) {
      const order = round % 2 ? [...clients].reverse() : clients;
      for (const [name, call] of order) {
        const r = await run(call, body, REQUESTS);
        const s = seen.get(name) ?? { cpuUs: [], rps: [] };
        s.cpuUs.push(r.cpuUs);
        s.rps.push(r.rps);
        seen.set(name, s);
      }
    }
    for (const [name, s] of seen)
      process.stdout.write(
        `${stream ? "stream" : "json  "} ${name.padEnd(9)}: ${median(s.cpuUs).toFixed(1)} µs CPU/request (median of ${s.cpuUs.length}), ${median(s.rps).toFixed(0)} req/s\n`,
      );
  }
} finally {
  await stop(fake);
}
