/**
 * What h3 would cost on the chat hot path (docs/architecture.md, "Why chat runs on node:http"):
 *   node dist/bench/h3-cost.js [--duration s] [--connections n]
 * One process serves the same trivial chat answer three ways: plain node:http (read the body,
 * JSON.parse, one write, as src/http/exchange.ts does), h3 routing to a node handler (as the
 * Responses and embeddings routes run), and h3 end to end on Web Request/Response (what
 * "everything through h3" would mean). autocannon loads each in a child process; the figure
 * is this process's CPU time per request (process.cpuUsage), which stays meaningful on a
 * shared machine where req/s does not.
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fromNodeHandler, H3, toNodeHandler } from "h3";
import { readBody } from "../src/http/body.js";
import { ROOT } from "./gateway-process.js";
import { bodyFor } from "./load.js";
import type { LoadResult, LoadSpec } from "./load-worker.js";

const { values: opts } = parseArgs({ options: { duration: { type: "string", default: "5" }, connections: { type: "string", default: "50" } } });

const ANSWER = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 0,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello there" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
});
const HEADERS = { "x-request-id": "req_1", "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99", "x-ratelimit-reset": "60" };
let served = 0;

async function nodeChat(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const parsed = JSON.parse((await readBody(req, 1 << 20)).toString()) as { model: string };
  if (!parsed.model) throw new Error("no model");
  served++;
  res.writeHead(200, { ...HEADERS, "content-type": "application/json", "content-length": String(Buffer.byteLength(ANSWER)) }).end(ANSWER);
}

const plain: RequestListener = (req, res) => void nodeChat(req, res);

const h3Routed = new H3().post(
  "/v1/chat/completions",
  fromNodeHandler((req, res) => nodeChat(req as IncomingMessage, res as ServerResponse)),
);

const h3Web = new H3().post("/v1/chat/completions", async (event) => {
  const parsed = (await event.req.json()) as { model: string };
  if (!parsed.model) throw new Error("no model");
  served++;
  return new Response(ANSWER, { headers: { ...HEADERS, "content-type": "application/json" } });
});

function listen(handler: RequestListener): Promise<{ url: string; close: () => void }> {
  const server = createServer({ keepAliveTimeout: 65_000 }, handler);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/v1/chat/completions`, close: () => (server.closeAllConnections(), server.close()) });
    }),
  );
}

function load(url: string, durationS: number): Promise<LoadResult> {
  const spec: LoadSpec = {
    url,
    body: bodyFor(false),
    headers: { "content-type": "application/json" },
    connections: Number(opts.connections),
    warmupS: 0,
    durationS,
    stream: false,
  };
  const child = spawn(process.execPath, [join(ROOT, "dist/bench/load-worker.js"), JSON.stringify(spec)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load exited ${code}`)))),
  );
}

/** CPU µs per request of this process while `handler` serves the load (after a 1 s warmup). */
async function cpuPerRequest(handler: RequestListener): Promise<{ usPerRequest: number; rps: number }> {
  const s = await listen(handler);
  await load(s.url, 1);
  served = 0;
  const cpu0 = process.cpuUsage();
  const r = await load(s.url, Number(opts.duration));
  const cpu = process.cpuUsage(cpu0);
  s.close();
  if (r.non2xx || r.errors || r.mismatches) throw new Error(`invalid run: ${JSON.stringify(r)}`);
  return { usPerRequest: (cpu.user + cpu.system) / served, rps: r.rps };
}

const rows: Array<[string, RequestListener]> = [
  ["node:http", plain],
  ["h3 routing + node handler", toNodeHandler(h3Routed)],
  ["h3 Web Request/Response", toNodeHandler(h3Web)],
];
const results: Record<string, { usPerRequest: number; rps: number }> = {};
for (const [name, handler] of rows) results[name] = await cpuPerRequest(handler);
const base = results["node:http"]!.usPerRequest;
for (const [name, r] of Object.entries(results)) {
  process.stdout.write(
    `${name.padEnd(28)} ${r.usPerRequest.toFixed(1).padStart(6)} µs CPU/request  (+${(r.usPerRequest - base).toFixed(1)} µs)  ${r.rps.toFixed(0)} req/s\n`,
  );
}
