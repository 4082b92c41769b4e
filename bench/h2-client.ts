/**
 * The upstream client alone, for the stream case: N streams of 20 chunks one second apart from
 * the fake, through the gateway's HTTP/2 client (src/upstream/h2-origin.ts) over TLS, through
 * undici over HTTP/1.1 and TLS, and through undici over plain HTTP/1.1 (a socket per stream).
 * Per stream: the client process's CPU (start to last byte) and its RSS and heap with all N open,
 * each client in a process of its own (RSS a process once reached stays with it).
 *   node dist/bench/h2-client.js [--streams 1000]
 * The figures and the choice: docs/limits.md, "HTTP/2 to providers".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSecureContext, rootCertificates } from "node:tls";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { H2Origins } from "../src/upstream/h2-origin.js";
import { ROOT } from "./gateway-process.js";
import { CORES, firstJsonLine, pinSelf, spawnPinned, stop } from "./proc.js";

const { values: opts } = parseArgs({ options: { streams: { type: "string", default: "1000" }, client: { type: "string" }, fake: { type: "string" } } });
const N = Number(opts.streams);
const BODY = JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "Hi" }] });
const HEADERS = { "content-type": "application/json", authorization: "Bearer sk-bench" };
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Send = (signal: AbortSignal) => Promise<{ body: AsyncIterable<unknown> }>;
interface Fake {
  port: number;
  tlsPort: number;
  caFile: string;
}
const CLIENTS = ["HTTP/2 + TLS (h2-origin)", "HTTP/1.1 + TLS (undici)", "HTTP/1.1 plain (undici)"];

async function drain(res: { body: AsyncIterable<unknown> }): Promise<void> {
  for await (const _ of res.body); // the chunks are not kept: only their cost is measured
}

async function measure(name: string, send: Send): Promise<string> {
  gc();
  await sleep(200);
  const m0 = process.memoryUsage();
  const cpu0 = process.cpuUsage();
  const all: Array<Promise<void>> = [];
  for (let i = 0; i < N; i++) {
    all.push(send(new AbortController().signal).then(drain));
    if (i % 100 === 99) await sleep(10); // 10,000 a second: no burst of connects
  }
  await sleep(3000); // all open, a few chunks in
  gc();
  const m1 = process.memoryUsage();
  await Promise.all(all);
  const c = process.cpuUsage(cpu0);
  const kb = (k: "rss" | "heapUsed") => ((m1[k] - m0[k]) / N / 1024).toFixed(1);
  return `${name.padEnd(26)} CPU ${((c.user + c.system) / 1000 / N).toFixed(3)} ms per stream, with ${N} open: RSS ${kb("rss")} KB, heap ${kb("heapUsed")} KB per stream`;
}

function client(name: string, f: Fake): Send {
  const secureContext = createSecureContext({ ca: [...rootCertificates, readFileSync(f.caFile, "utf8")] });
  const tlsUrl = new URL(`https://127.0.0.1:${f.tlsPort}/v1/chat/completions`);
  if (name === CLIENTS[0]) {
    const h2 = new H2Origins({ connect: 10_000, firstByte: 60_000, idle: 60_000, streamsPerConnection: 100, secureContext });
    return (signal) => h2.request(tlsUrl, "POST", HEADERS, BODY, signal);
  }
  const tls = name === CLIENTS[1];
  const dispatcher = new Agent({ connections: 100_000, pipelining: 1, connect: tls ? { secureContext } : {} });
  const url = tls ? tlsUrl : `http://127.0.0.1:${f.port}/v1/chat/completions`;
  return (signal) => request(url, { method: "POST", headers: HEADERS, body: BODY, dispatcher, signal });
}

if (opts.client) {
  pinSelf(CORES.gateway);
  const line = await measure(opts.client, client(opts.client, JSON.parse(opts.fake!) as Fake));
  process.stdout.write(`${JSON.stringify({ line })}\n`);
  process.exit(0); // the pools' idle connections would keep it alive
}

pinSelf(CORES.load);
const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js"), "--tls"]);
try {
  const f = await firstJsonLine<Fake>(fake, "fake upstream");
  await (await fetch(`http://127.0.0.1:${f.port}/__bench/shape?chunks=20&gapMs=1000`, { method: "POST" })).arrayBuffer();
  const lines: string[] = [];
  for (const name of CLIENTS) {
    const child = spawnPinned(CORES.gateway, [
      "--expose-gc",
      fileURLToPath(import.meta.url),
      "--streams",
      String(N),
      "--client",
      name,
      "--fake",
      JSON.stringify(f),
    ]);
    lines.push((await firstJsonLine<{ line: string }>(child, name, 120_000)).line);
  }
  process.stdout.write(`${N} streams of 20 chunks 1 s apart, the client alone:\n${lines.join("\n")}\n`);
} finally {
  await stop(fake);
}
