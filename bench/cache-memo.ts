/**
 * The response cache's memory under repeats (docs/cache.md, "Memory"; issue 39's measurement):
 *   node dist/bench/cache-memo.js [--bodies 10000] [--answer-bytes 1000000] [--concurrency 4] [--node-flags=...]
 * One `gateway serve` with the cache enabled at its defaults (`maxBytes` 64 MiB) and the bench
 * key opted in; an upstream in this process answers every chat request with a completion whose
 * text is `--answer-bytes` long. Each of `--bodies` distinct bodies is sent three times: a miss
 * (answered upstream, stored), a hit (remembered by the request memo), a byte-for-byte repeat (the
 * memo parses the answer and keeps that parse while the budget has room). The gateway's VmRSS is
 * read from /proc after the first 20 bodies (the start) and polled throughout (the peak).
 * Target: every request answered with the whole answer, and peak − start ≤ maxBytes + 100 MB.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { prepare, startGateway } from "./gateway-process.js";
import { memoryOf, sampleRss } from "./proc.js";

const { values: opts } = parseArgs({
  options: {
    bodies: { type: "string", default: "10000" },
    "answer-bytes": { type: "string", default: "1000000" },
    concurrency: { type: "string", default: "4" },
    "node-flags": { type: "string", default: "" },
    "no-store": { type: "boolean", default: false },
  },
});
const BODIES = Number(opts.bodies);
const ANSWER_BYTES = Number(opts["answer-bytes"]);
const CONCURRENCY = Number(opts.concurrency);
/** The config's default `cache.maxBytes` (prepare() enables the cache with its defaults). */
const MAX_BYTES_MB = 64;
const WARM = 20;
/** For scale: the same requests with `Cache-Control: no-store`, every one answered upstream and nothing kept. */
const NO_STORE = opts["no-store"];

/** A real-shaped chat.completion whose text is `bytes` long, made once. */
function upstream(bytes: number): Promise<Server> {
  const body = JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", content: "x".repeat(bytes) }, finish_reason: "stop" }],
    usage: { prompt_tokens: 12, completion_tokens: Math.ceil(bytes / 4), total_tokens: 12 + Math.ceil(bytes / 4) },
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const fake = await upstream(ANSWER_BYTES);
const setup = prepare((fake.address() as AddressInfo).port, undefined, { cache: true });
const gw = await startGateway(setup, opts["node-flags"].split(" ").filter(Boolean));
const mb = (n: number) => `${n.toFixed(0)} MB`;

/** One request; fails the run on anything but a 200 with the expected cache header and the whole answer. */
async function ask(i: number, expected: string): Promise<void> {
  const body = JSON.stringify({ model: "openai/gpt-4o-mini", temperature: 0, messages: [{ role: "user", content: `question ${i}` }] });
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${setup.key}`, "content-type": "application/json", ...(NO_STORE && { "cache-control": "no-store" }) },
    body,
  });
  const bytes = (await res.arrayBuffer()).byteLength;
  const cache = res.headers.get("x-gateway-cache");
  if (res.status !== 200 || cache !== expected || bytes < ANSWER_BYTES)
    throw new Error(`body ${i}: ${res.status}, cache ${cache} (expected ${expected}), ${bytes} bytes`);
}

async function bodies(from: number, to: number): Promise<void> {
  let next = from;
  const worker = async () => {
    for (let i = next++; i < to; i = next++) for (const expected of NO_STORE ? ["bypass", "bypass", "bypass"] : ["miss", "hit", "hit"]) await ask(i, expected);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

try {
  const t0 = performance.now();
  await bodies(0, WARM);
  const start = memoryOf(gw.pid)?.rssMb ?? NaN;
  const sampler = sampleRss(gw.pid, 200);
  for (let from = WARM; from < BODIES; from += 1000) {
    await bodies(from, Math.min(from + 1000, BODIES));
    process.stderr.write(`${Math.min(from + 1000, BODIES)} bodies: RSS ${mb(memoryOf(gw.pid)?.rssMb ?? NaN)}\n`);
  }
  const peak = sampler.stop();
  const end = memoryOf(gw.pid)?.rssMb ?? NaN;
  const grew = peak - start;
  const ok = grew <= MAX_BYTES_MB + 100;
  console.log(
    `${BODIES} bodies × 3 requests, answers of ${ANSWER_BYTES} bytes, in ${((performance.now() - t0) / 1000).toFixed(0)} s: ` +
      `RSS ${mb(start)} after ${WARM} bodies, peak ${mb(peak)}, end ${mb(end)}; peak − start ${mb(grew)} ` +
      `(target ≤ maxBytes ${MAX_BYTES_MB} MB + 100 MB): ${ok ? "PASS" : "FAIL"}`,
  );
  if (!ok) process.exitCode = 1;
} finally {
  await gw.close();
  fake.close();
  setup.cleanup();
}
