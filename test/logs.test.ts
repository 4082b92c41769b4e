/**
 * The request log (docs/observability.md, issue 14): one JSON line per request carrying the
 * X-Request-Id and the fields the contract lists, no contents unless `log.bodies`, never a
 * key; `gateway serve` logs to stdout (JSON when not a terminal), `--log-format` and
 * `--log-level`; secrets in other records are redacted from one list (src/observability/redact.ts). The
 * whole suite's logs are scanned for its secrets at the end (test/global-setup.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { parseConfig } from "../src/config/config.js";
import { spawn } from "node:child_process";
import { createLog } from "../src/observability/log.js";
import { LogWriter } from "../src/observability/log-writer.js";
import { prettyLine } from "../src/observability/log-pretty.js";
import { nanoToUsd } from "../src/core/money.js";
import { LineBytes } from "../src/observability/line-bytes.js";
import { scrub } from "../src/observability/redact.js";
import { assertBuilt, BIN, gateway, serve, tempDir } from "./helpers/cli.js";
import { logFile } from "./helpers/secrets.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, post } from "./helpers/http.js";
import { completion, stream } from "./helpers/openai-wire.js";

const MODEL = "openai/gpt-4o-mini";
const CHAT = "/v1/chat/completions";
const SECRET_TEXT = "the quick brown fox 4417";
const ask = { model: MODEL, messages: [{ role: "user", content: SECRET_TEXT }] };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

type Line = Record<string, any>;

async function setup(extra: Record<string, unknown> = {}): Promise<{ fake: FakeUpstream; gw: TestGateway; key: string; lines: () => Promise<Line[]> }> {
  const fake = await startFakeUpstream((req) =>
    req.body?.stream ? stream(["Hi", " there"], { prompt_tokens: 4, completion_tokens: 2 }) : completion("Hello", { prompt_tokens: 10, completion_tokens: 20 }),
  );
  const gw = await startGateway(openaiConfig(fake.url, extra));
  let closed = false;
  cleanups.push(
    () => fake.close(),
    async () => void (closed || (await gw.close())),
  );
  const key = await gw.createKey({ account: "acme" });
  await gw.addCredits("10", "acme");
  // The log is complete once the gateway closed (the last batch is written then).
  const lines = async () => {
    if (!closed) await gw.close();
    closed = true;
    expect(gw.logFile, "the suite runs with a log folder (test/global-setup.ts)").toBeDefined();
    return readFileSync(gw.logFile!, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  };
  return { fake, gw, key, lines };
}

describe("one line per request", () => {
  test("JSON, with the X-Request-Id and the contract's fields; tokens, cost and usage source as billed", async () => {
    const { gw, key, lines } = await setup();
    const res = await post(gw.url, CHAT, ask, bearer(key));
    expect(res.status).toBe(200);
    await res.json();
    const s = await post(gw.url, CHAT, { ...ask, stream: true }, bearer(key));
    await s.text();
    const bad = await post(gw.url, CHAT, ask, bearer("sk-not-a-real-key-000000000000000000"));
    expect(bad.status).toBe(401);
    const all = await lines();
    const of = (r: Response) => all.filter((l) => l.req_id === r.headers.get("x-request-id"));
    const [line] = of(res);
    expect(of(res)).toHaveLength(1);
    expect(line).toMatchObject({
      level: "info",
      msg: "request",
      route: CHAT,
      status: 200,
      account: "acme",
      model: MODEL,
      provider: "openai",
      prompt_tokens: 10,
      completion_tokens: 20,
      cost_usd: "0.0000135",
      failovers: 0,
      attempts: 1,
      usage_source: "provider",
      outcome: "ok",
    });
    expect(line!.key_id).toMatch(/\S/);
    expect(typeof line!.time).toBe("number");
    for (const f of ["latency_ms", "upstream_ms", "overhead_ms"]) expect(line![f]).toBeGreaterThanOrEqual(0);
    expect(line!.overhead_ms).toBeLessThanOrEqual(line!.latency_ms);
    expect(of(s)[0]).toMatchObject({ status: 200, prompt_tokens: 4, completion_tokens: 2, cost_usd: "0.0000018", usage_source: "provider", outcome: "ok" });
    expect(of(bad)[0]).toMatchObject({ status: 401, key_id: null, model: null, provider: null, prompt_tokens: null });
    // Start-up and shutdown are records too; contents are not logged by default; the key never is.
    expect(all.some((l) => l.event === "stop")).toBe(true);
    const text = readFileSync(gw.logFile!, "utf8");
    expect(text).not.toContain(SECRET_TEXT);
    expect(text).not.toContain(key);
    expect(text).not.toContain("sk-upstream-secret-0000");
  });

  test("log.bodies adds the request and the answer, still never a key", async () => {
    const { gw, key, lines } = await setup({ log: { bodies: true } });
    const res = await post(gw.url, CHAT, ask, bearer(key));
    await res.json();
    const line = (await lines()).find((l) => l.req_id === res.headers.get("x-request-id"))!;
    expect(JSON.parse(line.request_body).messages[0].content).toBe(SECRET_TEXT);
    expect(JSON.parse(line.response_body).choices[0].message.content).toBe("Hello");
    expect(readFileSync(gw.logFile!, "utf8")).not.toContain(key);
  });

  test("h3 routes are logged too, with the key's id once authenticated", async () => {
    const { gw, key, lines } = await setup();
    const res = await fetch(`${gw.url}/v1/models`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    await res.json();
    const line = (await lines()).find((l) => l.req_id === res.headers.get("x-request-id"));
    expect(line).toMatchObject({ route: "/v1/models", status: 200, account: "acme" });
  });
});

describe("redaction", () => {
  test("any record: secret fields are replaced and credentials cut out of free text", async () => {
    const dir = tempDir();
    const file = join(dir, "events.log");
    const log = createLog(parseConfig({}).log, { dest: file, format: "json", say: null });
    log.events.warn(
      {
        provider: { apiKey: "sk-live-aaaaaaaaaaaa1111", baseUrl: "https://x" },
        headers: { authorization: "Bearer sk-live-bbbbbbbb2222" },
        password: "hunter2-hunter2",
      },
      "oops",
    );
    log.notice("error", "cannot reach https://admin:pa55word-77@example.com/v1 with Bearer sk-live-cccccccc3333");
    await log.close();
    const text = readFileSync(file, "utf8");
    for (const secret of ["sk-live-aaaaaaaaaaaa1111", "sk-live-bbbbbbbb2222", "hunter2-hunter2", "pa55word-77", "sk-live-cccccccc3333"])
      expect(text).not.toContain(secret);
    expect(text).toContain("[redacted]");
    expect(text).toContain("https://x"); // what is not secret stays
    expect(scrub("key sk-proj-abcdefgh12345678 and AKIAABCDEFGHIJKLMNOP")).toBe("key [redacted] and [redacted]");
  });
});

describe("writing never blocks", () => {
  test("a reader that stops reading: lines past the cap are dropped, the event loop stays free, shutdown does not hang", async () => {
    // A pipe nobody reads: the child never reads its stdin.
    const child = spawn("sleep", ["30"], { stdio: ["pipe", "ignore", "ignore"] });
    cleanups.push(async () => void child.kill());
    const fd = (child.stdin as unknown as { _handle: { fd: number } })._handle.fd;
    const writer = new LogWriter(fd, { minLength: 4096, maxPending: 200_000 }, false);
    const line = `${"x".repeat(1023)}\n`;
    const t0 = performance.now();
    for (let i = 0; i < 2000; i++) writer.write(line); // 2 MB into a 64 KiB pipe
    expect(performance.now() - t0).toBeLessThan(500); // appends only: no write waited
    const tick = performance.now();
    await new Promise((r) => setTimeout(r, 20));
    expect(performance.now() - tick).toBeLessThan(500);
    expect(writer.dropped).toBeGreaterThan(1000);
    const ended = performance.now();
    await writer.end();
    expect(performance.now() - ended).toBeLessThan(5000);
  });
});

describe("numbers and strings in the line (written as bytes)", () => {
  const written = (write: (out: LineBytes) => void): string => {
    const out = new LineBytes(Buffer.alloc(16));
    out.room(512);
    write(out);
    return out.buf.toString("latin1", 0, out.len);
  };
  // Random magnitudes from 1 to 15 digits: every digit count, both branches of the pair loop.
  const random = (): number => Math.floor(Math.random() * 10 ** (1 + Math.random() * 14.9));
  const usd = (nano: number): string => written((o) => o.usd(nano));

  test("the decimal USD of any nano-USD amount below 2^53 is exact (as core/money.ts says it)", () => {
    for (const n of [0, 1, 1800, 13_500, 999_999_999, 1e9, 1e9 + 1, 123_456_789_012_345, Number.MAX_SAFE_INTEGER]) expect(usd(n), String(n)).toBe(nanoToUsd(n));
    for (let i = 0; i < 20_000; i++) {
      const n = random();
      expect(usd(n), String(n)).toBe(nanoToUsd(n));
    }
  });

  test("integers as JavaScript prints them, milliseconds as Math.round(x * 1000) / 1000 prints, anything else null", () => {
    for (const n of [0, 7, 10, 99, 100, 101, 1_764_035_000_123, Number.MAX_SAFE_INTEGER, -5, -100]) expect(written((o) => o.int(n))).toBe(String(n));
    for (const n of [1.5, NaN, Infinity, 2 ** 53]) expect(written((o) => o.int(n))).toBe("null");
    for (let i = 0; i < 20_000; i++) {
      const n = random();
      expect(written((o) => o.int(n))).toBe(String(n));
      const ms = Math.random() * 10 ** (Math.random() * 6);
      expect(
        written((o) => o.millis(ms)),
        String(ms),
      ).toBe(String(Math.round(ms * 1000) / 1000));
    }
  });

  test("any string comes back from JSON.parse as it was, and the bytes are ASCII", () => {
    for (const s of ['a"b\\c', "\n\t\u0000\u001f\u007f", "Zoë 😀 ж", "\ud800 lone", "", "plain"]) {
      const text = written((o) => o.json(s));
      expect(JSON.parse(text)).toBe(s);
      expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
    }
  });
});

describe("pretty lines for a terminal", () => {
  test("time, level, message and the fields, one line", () => {
    const line = prettyLine(
      JSON.stringify({
        level: "info",
        time: Date.UTC(2026, 0, 1, 12, 30, 5, 7),
        msg: "request",
        req_id: "req_1",
        status: 200,
        model: "openai/gpt-4o-mini",
        key_id: null,
      }),
      false,
    );
    expect(line).toBe("12:30:05.007 INFO  request req_id=req_1 status=200 model=openai/gpt-4o-mini\n");
  });
});

describe("gateway serve", () => {
  beforeAll(() => assertBuilt());

  /** A config file (a fake upstream, its own database, `extra` on top) and a funded key, for `gateway serve` children. */
  async function serveSetup(extra: Record<string, unknown> = {}): Promise<{ config: string; key: string }> {
    const fake = await startFakeUpstream(() => completion("Hello"));
    cleanups.push(() => fake.close());
    const dir = tempDir();
    const config = join(dir, "gateway.config.json");
    writeFileSync(config, JSON.stringify({ ...openaiConfig(fake.url), ...extra, database: join(dir, "gateway.db") }));
    const key = (await gateway(["keys", "create", "--name", "app", "--json", "--config", config])).json.key as string;
    await gateway(["credits", "add", "5", "--config", config]);
    return { config, key };
  }

  test("logs JSON lines to stdout when it is not a terminal; --log-format pretty and --log-level change that", async () => {
    const { config, key } = await serveSetup();
    const run = async (flags: string[]) => {
      const s = await serve(["--config", config, ...flags]);
      const res = await post(s.url, CHAT, ask, bearer(key));
      await res.text();
      s.proc.kill("SIGTERM");
      const r = await s.proc;
      return { id: res.headers.get("x-request-id")!, out: String(r.stdout).split("\n").slice(1).filter(Boolean) };
    };
    const json = await run([]);
    const records = json.out.map((l) => JSON.parse(l) as Line);
    expect(records.find((l) => l.req_id === json.id)).toMatchObject({ msg: "request", status: 200, model: MODEL });
    expect(records[0]).toMatchObject({ event: "start", msg: "gateway started" });
    expect(records.some((l) => l.event === "stop")).toBe(true);
    const pretty = await run(["--log-format", "pretty"]);
    expect(pretty.out.find((l) => l.includes(pretty.id))).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} .*INFO.* request req_id=req_\w+ route=\/v1\/chat\/completions status=200 /,
    );
    const quiet = await run(["--log-level", "warn"]);
    expect(quiet.out.join("\n")).not.toContain(quiet.id);
    const wrong = await gateway(["serve", "--log-format", "xml", "--config", config]);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain("--log-format: expected json or pretty, got xml");
  });

  test("stdout that nobody reads for a while: requests are answered as fast, and every line arrives once it is read again", async () => {
    // Limits high enough that the 3,000 requests below are all answered.
    const { config, key } = await serveSetup({ limits: { key: { requests: 100_000, window: 60 }, ip: { requests: 100_000, window: 60 } } });
    // A pipe (a socket pair, as a log collector's) this test stops reading after the ready line.
    const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--json", "--config", config], {
      env: { GATEWAY_SECRET: "cli-test-secret", PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    cleanups.push(async () => void child.kill("SIGKILL"));
    const url = await new Promise<string>((resolveUrl) => child.stdout.once("data", (d: Buffer) => resolveUrl(JSON.parse(d.toString().split("\n")[0]!).url)));
    child.stdout.pause();
    // 3,000 lines of ~500 bytes: several times what the socket holds, so the writer has to wait for the reader.
    const ids: string[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 25 }, async () => {
        while (ids.length < 3000) {
          const res = await post(url, CHAT, ask, bearer(key));
          await res.text();
          expect(res.status).toBe(200);
          ids.push(res.headers.get("x-request-id")!);
        }
      }),
    );
    const servedMs = performance.now() - t0;
    expect(child.stdout.readableFlowing).toBe(false); // not read meanwhile
    const health = performance.now();
    expect((await fetch(`${url}/v1/health/providers`)).status).toBe(200);
    expect(performance.now() - health).toBeLessThan(500); // the event loop is free
    expect(servedMs / ids.length).toBeLessThan(20);
    // Reading again, then a clean stop: every request's line is there.
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stdout.resume();
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    const file = logFile("serve");
    if (file) writeFileSync(file, out); // joins the suite's redaction scan
    // Over 1 MB: several times what the socket holds (~200 KB), so most of it waited in the gateway.
    expect(out.length).toBeGreaterThan(1_000_000);
    const logged = new Set(
      out
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as Line).req_id),
    );
    expect(ids.filter((id) => !logged.has(id))).toEqual([]);
    // The test's own bound is 20 ms per request (60 s for 3,000) plus a start: the suite's 20 s default was tighter than it.
  }, 90_000);
});
