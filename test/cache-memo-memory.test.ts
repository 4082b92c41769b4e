/**
 * The request memo's memory is the response cache's (docs/cache.md, "Memory"), on a real
 * `gateway serve` process: 300 distinct bodies, each answered once upstream with a ~1 MB answer,
 * then from the cache twice (the second time as a byte-for-byte repeat, which the memo answers
 * with the answer's parse). With `cache.maxBytes` at 32 MiB and V8's heap sized as `serve` sizes
 * it (no flags), the process stays within its bound: every request answers and its resident
 * memory, read from its own `process_resident_memory_bytes` on /metrics, grows by less than
 * `maxBytes` + 100 MB. A memo that kept every answer it parsed (~2 MB each, after the cache
 * dropped them) grows without bound; a heap sized by V8's defaults lets ~4x the cache's live
 * set accumulate as garbage (src/cli/heap-under-load.ts). `node dist/bench/cache-memo.js` runs
 * the 10,000 bodies.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { parseMetrics, sampleOf } from "./helpers/prometheus.js";

const MAX_BYTES = 32 * 1024 * 1024;
const BODIES = 300;
const ANSWER = "0123456789abcdef".repeat(64 * 1024); // 1 MiB of text
const MB = 1024 * 1024;

let fake: FakeUpstream;
let config: string;
let key: string;

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream(() => completion(ANSWER));
  const dir = tempDir();
  config = join(dir, "gateway.config.json");
  const cache = { enabled: true, ttl: 3600, maxBytes: MAX_BYTES, maxEntryBytes: 2 * MB };
  const limits = { key: { requests: 100_000, window: 60 } };
  writeFileSync(config, JSON.stringify({ ...openaiConfig(fake.url, { cache, limits }), database: join(dir, "gateway.db") }));
  key = (await gateway(["keys", "create", "--name", "memo", "--cache", "--json", "--config", config])).json.key as string;
  await gateway(["credits", "add", "100", "--config", config]);
});
afterAll(() => fake?.close());

test("300 repeated bodies with 1 MB answers: every request answered, RSS within maxBytes + 100 MB of where it started", async () => {
  const s = await serve(["--config", config, "--log-level", "warn"]);
  const rss = async () => sampleOf(parseMetrics(await (await fetch(`${s.url}/metrics`)).text()), "process_resident_memory_bytes");
  const ask = async (i: number, expected: string) => {
    const body = JSON.stringify({ model: "openai/gpt-4o-mini", temperature: 0, messages: [{ role: "user", content: `question ${i}` }] });
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
    });
    expect([res.status, res.headers.get("x-gateway-cache")], `body ${i}`).toEqual([200, expected]);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content.length).toBe(ANSWER.length);
  };
  try {
    const round = async (i: number) => {
      await ask(i, "miss");
      await ask(i, "hit"); // remembered by the memo
      await ask(i, "hit"); // the memo's repeat: the answer parsed and (room permitting) kept
    };
    for (let i = 0; i < 5; i++) await round(i);
    const start = await rss();
    let peak = start;
    for (let i = 5; i < BODIES; i++) {
      await round(i);
      if (i % 5 === 0) peak = Math.max(peak, await rss());
    }
    const grown = Math.max(peak, await rss()) - start;
    console.log(`RSS ${Math.round(start / MB)} MB after 5 bodies, peak +${Math.round(grown / MB)} MB over ${BODIES}`);
    expect(grown).toBeLessThan(MAX_BYTES + 100 * MB);
  } finally {
    s.proc.kill("SIGTERM");
    await s.proc;
  }
}, 240_000);
