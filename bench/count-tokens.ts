/**
 * What `count_tokens` costs the gateway (docs/messages.md, "count_tokens"; issue 39's measurement):
 *   node dist/bench/count-tokens.js [--mb 8] [--parallel 4] [--seconds 10]
 * One `gateway serve` (the bench config: `openai/gpt-4o-mini`, counted by the gateway itself on
 * /v1/messages/count_tokens) and three accounts: `default` (funded, sends chat), `counter`
 * (funded) and `broke` (no credits). Reported: the gateway's CPU time (/proc) for one `--mb` MB
 * body from each of `counter` and `broke` (median of 3), and `default`'s chat latency (p50, max;
 * sequential requests to an instant upstream) alone for `--seconds`, then while `--parallel`
 * loops send the same body from `counter` for `--seconds`.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { HZ, processTicks } from "./cpu.js";
import { cli, prepare, ROOT, startGateway, type GatewayProcess } from "./gateway-process.js";
import { firstJsonLine, spawnPinned, stop, CORES } from "./proc.js";
import { median, percentile, sortedCopy } from "./stats.js";

const { values: opts } = parseArgs({
  options: {
    mb: { type: "string", default: "8" },
    parallel: { type: "string", default: "4" },
    seconds: { type: "string", default: "10" },
  },
});
const SECONDS = Number(opts.seconds);

/** Prose-like text in messages of 500,000 characters, `mb` MB in all, as one JSON body. */
function countBody(mb: number): string {
  const words = ["the", "gateway", "counts", "tokens", "of", "every", "message", "before", "routing", "it", "to", "a", "provider", "42", "x7"];
  let piece = "";
  for (let i = 0; piece.length < 500_000; i++) piece += `${words[(i * 7) % words.length]}${i % 11 === 0 ? ". " : " "}`;
  const messages = Array.from({ length: Math.max(1, Math.round((mb * 1e6) / piece.length)) }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: piece,
  }));
  return JSON.stringify({ model: "openai/gpt-4o-mini", messages });
}

const fake = spawnPinned(CORES.load, [join(ROOT, "dist/bench/fake-upstream.js")]);
const fakePort = (await firstJsonLine<{ port: number }>(fake, "fake upstream")).port;
const setup = prepare(fakePort);
const common = ["--config", setup.config, "--db", setup.db, "--json"];
const keyOf = (account: string) => (JSON.parse(cli(["keys", "create", "--name", account, "--account", account, "--create", ...common])) as { key: string }).key;
const counter = keyOf("counter");
cli(["credits", "add", "1000", "--account", "counter", ...common]);
const broke = keyOf("broke");
const body = countBody(Number(opts.mb));
const gw = await startGateway(setup);

async function count(key: string): Promise<number> {
  const res = await fetch(`${gw.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

/** CPU seconds the gateway spent on one count (median of 3), and the status it answered. */
async function cpuOfOne(g: GatewayProcess, key: string): Promise<{ cpuS: number; status: number }> {
  const runs: number[] = [];
  let status = 0;
  for (let i = 0; i < 3; i++) {
    const t = processTicks(g.pid, false);
    status = await count(key);
    runs.push((processTicks(g.pid, false) - t) / HZ);
  }
  return { cpuS: median(runs), status };
}

/** `default`'s chat latencies (ms) for `seconds`, one request after another. */
async function chatLatencies(seconds: number): Promise<number[]> {
  const out: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const t = performance.now();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${setup.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`chat answered ${res.status}`);
    out.push(performance.now() - t);
  }
  return out;
}

const summary = (xs: number[]) => {
  const s = sortedCopy(xs);
  return `p50 ${percentile(s, 50).toFixed(1)} ms, max ${s.at(-1)!.toFixed(1)} ms (${s.length} requests)`;
};

try {
  await count(counter); // the tokenizer loaded
  const funded = await cpuOfOne(gw, counter);
  const unfunded = await cpuOfOne(gw, broke);
  console.log(
    `one ${opts.mb} MB count_tokens body: ${funded.cpuS.toFixed(2)} CPU-s funded (HTTP ${funded.status}), ${unfunded.cpuS.toFixed(2)} CPU-s without credits (HTTP ${unfunded.status})`,
  );
  console.log(`chat of another account alone: ${summary(await chatLatencies(SECONDS))}`);
  let running = true;
  const counts: number[] = [];
  const loops = Array.from({ length: Number(opts.parallel) }, async () => {
    while (running) counts.push(await count(counter));
  });
  const loaded = await chatLatencies(SECONDS);
  running = false;
  await Promise.all(loops);
  console.log(`chat while ${opts.parallel} count_tokens loops run: ${summary(loaded)}; ${counts.length} counts answered`);
} finally {
  await gw.close();
  await stop(fake);
  setup.cleanup();
}
