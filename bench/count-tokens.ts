/**
 * What `count_tokens` costs the gateway (docs/messages.md, "count_tokens"; issue 39's measurement):
 *   node dist/bench/count-tokens.js [--mb 8] [--parallel 4] [--seconds 10]
 * One `gateway serve` (the bench config: `openai/gpt-4o-mini`, counted by the gateway itself on
 * /v1/messages/count_tokens) and three accounts: `default` (funded, sends chat), `counter`
 * (funded) and `broke` (no credits). Reported: the gateway's CPU time (/proc) for one `--mb` MB
 * body from each of `counter` and `broke` (median of 3), and `default`'s chat latency (p50, max;
 * sequential requests to an instant upstream) alone for `--seconds`, then while `--parallel`
 * loops send the same body from `counter` for `--seconds` (from a worker thread: this thread's
 * event loop times the chat requests and does nothing else).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { HZ, processTicks } from "./cpu.js";
import { cli, prepare, ROOT, startGateway, type BenchSetup, type GatewayProcess } from "./gateway-process.js";
import { CORES, firstJsonLine, spawnPinned, stop } from "./proc.js";
import { median, percentile, sortedCopy } from "./stats.js";

interface Counting {
  url: string;
  key: string;
  /** The JSON body's bytes, encoded once (encoding 8 MB per request would load the sender, not the gateway). */
  body: Uint8Array;
}

/**
 * Messages of 500,000 characters, `mb` MB in all, as one JSON body: words of 2 to 9 letters drawn
 * by a fixed pseudo-random sequence, so the tokenizer's cache of words it has seen helps as
 * little as with real text (a few repeated words would be almost free to count).
 */
function countBody(mb: number): Uint8Array {
  let seed = 42;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  const word = () => Array.from({ length: 2 + (next() % 8) }, () => String.fromCharCode(97 + (next() % 26))).join("");
  const messages = Array.from({ length: Math.max(1, Math.round(mb * 2)) }, (_, i) => {
    let content = "";
    while (content.length < 500_000) content += `${word()} `;
    return { role: i % 2 ? "assistant" : "user", content };
  });
  return new TextEncoder().encode(JSON.stringify({ model: "openai/gpt-4o-mini", messages }));
}

async function count(c: Counting): Promise<number> {
  const res = await fetch(`${c.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "x-api-key": c.key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: c.body,
  });
  await res.arrayBuffer();
  return res.status;
}

/** The worker thread: `parallel` counting loops until told to stop, then the number of counts answered. */
async function countLoops(w: Counting & { parallel: number }): Promise<void> {
  let running = true;
  parentPort!.once("message", () => (running = false));
  let answered = 0;
  const loop = async () => {
    while (running) answered += (await count(w)) ? 1 : 0;
  };
  await Promise.all(Array.from({ length: w.parallel }, loop));
  parentPort!.postMessage(answered);
}

/** CPU seconds the gateway spent on one count (median of 3), and the status it answered. */
async function cpuOfOne(gw: GatewayProcess, c: Counting): Promise<{ cpuS: number; status: number }> {
  const runs: number[] = [];
  let status = 0;
  for (let i = 0; i < 3; i++) {
    const t = processTicks(gw.pid, false);
    status = await count(c);
    runs.push((processTicks(gw.pid, false) - t) / HZ);
  }
  return { cpuS: median(runs), status };
}

/** The chat latencies (ms) of `key` for `seconds`, one request after another. */
async function chatLatencies(url: string, key: string, seconds: number): Promise<string> {
  const out: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const t = performance.now();
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`chat answered ${res.status}`);
    out.push(performance.now() - t);
  }
  const s = sortedCopy(out);
  return `p50 ${percentile(s, 50).toFixed(1)} ms, max ${s.at(-1)!.toFixed(1)} ms (${s.length} requests)`;
}

/** A key of a new account of its own, funded with `usd` when given. */
function accountKey(setup: BenchSetup, account: string, usd?: string): string {
  const common = ["--config", setup.config, "--db", setup.db, "--json"];
  const { key } = JSON.parse(cli(["keys", "create", "--name", account, "--account", account, "--create", ...common])) as { key: string };
  if (usd) cli(["credits", "add", usd, "--account", account, ...common]);
  return key;
}

async function measure(opts: { mb: string; parallel: string; seconds: string }): Promise<void> {
  const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js")]);
  const setup = prepare((await firstJsonLine<{ port: number }>(fake, "fake upstream")).port);
  const body = countBody(Number(opts.mb));
  const counter = accountKey(setup, "counter", "1000");
  const broke = accountKey(setup, "broke");
  const gw = await startGateway(setup);
  try {
    await count({ url: gw.url, key: counter, body }); // the tokenizer loaded
    const funded = await cpuOfOne(gw, { url: gw.url, key: counter, body });
    const unfunded = await cpuOfOne(gw, { url: gw.url, key: broke, body });
    console.log(
      `one ${opts.mb} MB count_tokens body: ${funded.cpuS.toFixed(2)} CPU-s funded (HTTP ${funded.status}), ${unfunded.cpuS.toFixed(2)} CPU-s without credits (HTTP ${unfunded.status})`,
    );
    console.log(`chat of another account alone: ${await chatLatencies(gw.url, setup.key, Number(opts.seconds))}`);
    const worker = new Worker(new URL(import.meta.url), { workerData: { url: gw.url, key: counter, body, parallel: Number(opts.parallel) } });
    const answered = new Promise<number>((resolve) => worker.once("message", resolve));
    const loaded = await chatLatencies(gw.url, setup.key, Number(opts.seconds));
    worker.postMessage("stop");
    console.log(`chat while ${opts.parallel} count_tokens loops run: ${loaded}; ${await answered} counts answered`);
    await worker.terminate();
  } finally {
    await gw.close();
    await stop(fake);
    setup.cleanup();
  }
}

if (isMainThread) {
  const { values } = parseArgs({
    options: { mb: { type: "string", default: "8" }, parallel: { type: "string", default: "4" }, seconds: { type: "string", default: "10" } },
  });
  await measure(values);
} else await countLoops(workerData as Counting & { parallel: number });
