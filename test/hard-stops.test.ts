/**
 * Issue "Hold under hostile upstreams", the process half (docs/limits.md): SIGTERM with slow
 * streams open, SIGKILL with streams open, malformed URLs and requests Node's parser refuses,
 * and what refusing a huge invalid body costs. `gateway serve` runs as a child process, as an
 * operator runs it; money is checked with the CLI afterwards.
 */
import Database from "better-sqlite3";
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, post } from "./helpers/http.js";
import { stream } from "./helpers/openai-wire.js";

let fake: FakeUpstream;
beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream();
});
afterAll(async () => {
  await fake?.close();
});

/** A gateway install in a temp dir: config, a key, $10. */
async function install(extra: string[] = []) {
  const d = tempDir();
  writeFileSync(
    join(d, "gateway.config.yaml"),
    [
      "server:",
      "  timeouts: { shutdown: 300 }",
      "providers:",
      "  openai: { baseUrl: ${FAKE_URL}/v1, apiKey: sk-upstream-stops }",
      "models:",
      "  - id: openai/gpt-4o-mini",
      "    pricing: { prompt: 1, completion: 2 }",
      "    endpoints: [{ provider: openai, model: gpt-4o-mini }]",
      ...extra,
    ].join("\n"),
  );
  const env = { FAKE_URL: fake.url };
  const key = (await gateway(["keys", "create", "--name", "app", "--json"], { cwd: d, env })).json.key as string;
  expect((await gateway(["credits", "add", "10", "--json"], { cwd: d, env })).exitCode).toBe(0);
  return { d, env, key };
}

/** Opens a stream and resolves once its first content arrived; `rest` is what comes after. */
async function openStream(url: string, key: string) {
  const res = await post(url, "/v1/chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true }, bearer(key));
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes("w0")) seen += decoder.decode((await reader.read()).value);
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return seen;
      seen += decoder.decode(value);
    }
  })();
  return { rest };
}

const slowStream = () =>
  stream(
    Array.from({ length: 100 }, (_, i) => `w${i} `),
    undefined,
    { delayMs: 100 },
  );

async function money(d: string, env: Record<string, string>) {
  const usage = (await gateway(["usage", "--json"], { cwd: d, env })).json;
  const balance = (await gateway(["credits", "show", "--json"], { cwd: d, env })).json.balance as string;
  return { usage, balance, total: (Number(balance) * 1e9 + Number(usage.cost) * 1e9) / 1e9 };
}

describe("3. hard stops", () => {
  test("SIGTERM with slow streams open: each ends with the error event, is billed for what it delivered, and the process exits 0", async () => {
    const { d, env, key } = await install();
    const { url, proc } = await serve([], { cwd: d, env });
    fake.queue(slowStream(), slowStream(), slowStream());
    const streams = await Promise.all([0, 1, 2].map(() => openStream(url, key)));
    proc.kill("SIGTERM");
    for (const s of streams) {
      const text = await s.rest;
      expect(text).toMatch(/"code":"stream_interrupted"/);
      expect(text).not.toContain("[DONE]");
    }
    expect((await proc).exitCode).toBe(0);
    const m = await money(d, env);
    expect(m.usage.requests).toBe(3);
    expect(Number(m.usage.cost)).toBeGreaterThan(0);
    expect(m.total).toBeCloseTo(10, 9);
  });

  test("SIGKILL with streams open: the next start bills them for what the journal recorded, and says so", async () => {
    const { d, env, key } = await install();
    const first = await serve([], { cwd: d, env });
    fake.queue(slowStream(), slowStream());
    const streams = await Promise.all([0, 1].map(() => openStream(first.url, key)));
    // Until the journal (written every 2 s) holds both streams: a fixed sleep raced it on a busy machine.
    const file = new Database(join(d, "gateway.db"), { readonly: true, fileMustExist: true });
    try {
      for (let waited = 0; (file.prepare("SELECT count(*) AS n FROM inflight").get() as { n: number }).n < 2; waited += 100) {
        if (waited > 15_000) throw new Error("the journal never recorded the two open streams");
        await sleep(100);
      }
    } finally {
      file.close();
    }
    first.proc.kill("SIGKILL");
    await first.proc;
    await Promise.all(streams.map((s) => s.rest));
    expect((await money(d, env)).usage.requests).toBe(0); // nothing was settled before the kill
    const again = await serve([], { cwd: d, env });
    let stderr = "";
    again.proc.stderr!.on("data", (b: Buffer) => void (stderr += b.toString()));
    const m = await money(d, env);
    expect(m.usage.requests).toBe(2);
    expect(Number(m.usage.cost)).toBeGreaterThan(0);
    expect(m.total).toBeCloseTo(10, 9);
    again.proc.kill("SIGTERM");
    const done = await again.proc;
    expect(`${stderr}${String(done.stderr)}`).toMatch(/billed 2 stream\(s\) interrupted/);
  });
});

describe("6-7. requests the gateway refuses before any handler", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ limits: { ip: { requests: 3, window: 60 } } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  /** One raw HTTP/1.1 exchange: what Node's parser sees before any route. */
  function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
    const { port } = new URL(gw.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.end(request));
      let data = "";
      socket.on("data", (b) => void (data += b.toString()));
      socket.on("error", reject);
      socket.on("close", () => {
        const [head = "", body = ""] = data.split("\r\n\r\n");
        const chunked = /transfer-encoding: chunked/i.test(head);
        resolve({ status: Number(head.split(" ")[1]), headers: head.toLowerCase(), body: chunked ? body.split("\r\n")[1]! : body });
      });
    });
  }

  test("a malformed URL (/v1/%ZZ) is a 400 in the error shape with the usual headers, and is limited per IP", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await raw("GET /v1/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      statuses.push(r.status);
      expect(r.headers).toMatch(/x-request-id: req_[0-9a-f]{32}/);
      expect(r.headers).toMatch(/x-ratelimit-limit: 3/);
      expect(JSON.parse(r.body).error).toMatchObject({ type: r.status === 429 ? "rate_limit_error" : "invalid_request_error" });
    }
    expect(statuses).toEqual([400, 400, 400, 429]);
  });

  test("Node's own refusals answer in the error shape: 431 for an oversized header block, 400 for a garbage request line", async () => {
    const g = await startGateway({});
    try {
      const { port } = new URL(g.url);
      const send = (request: string) =>
        new Promise<string>((resolve) => {
          const socket = connect(Number(port), "127.0.0.1", () => socket.end(request));
          let data = "";
          socket.on("data", (b) => void (data += b.toString()));
          socket.on("close", () => resolve(data));
          socket.on("error", () => resolve(data));
        });
      const big = await send(`GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
      expect(big).toMatch(/^HTTP\/1\.1 431 /);
      expect(JSON.parse(big.split("\r\n\r\n")[1]!).error).toMatchObject({ type: "invalid_request_error", code: "request_header_too_large" });
      expect(big.toLowerCase()).toMatch(/x-ratelimit-remaining: \d+/);
      const garbage = await send("HELLO THERE\r\n\r\n");
      expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(garbage.split("\r\n\r\n")[1]!).error).toMatchObject({ type: "invalid_request_error", code: "bad_request" });
    } finally {
      await g.close();
    }
  });
});

describe("8. refusing a huge invalid body", () => {
  /** utime + stime of a process, in ms (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
  function cpuMs(pid: number): number {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  }

  test("8 MiB of tool messages without tool_call_id is refused with a 400 in under 100 ms of the gateway's CPU", async () => {
    const { d, env, key } = await install();
    const { url, proc } = await serve([], { cwd: d, env });
    try {
      const messages = Array.from({ length: 270_000 }, () => ({ role: "tool", content: "x" }));
      const body = JSON.stringify({ model: "openai/gpt-4o-mini", messages });
      expect(body.length).toBeGreaterThan(7.5 * 1024 * 1024);
      await post(url, "/v1/chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "tool", content: "x" }] }, bearer(key)); // warm up
      // CPU time is read in 10 ms ticks and a GC can land inside any one request: the best of three.
      const used: number[] = [];
      for (let i = 0; i < 3; i++) {
        const before = cpuMs(proc.pid!);
        const res = await post(url, "/v1/chat/completions", body, bearer(key));
        used.push(cpuMs(proc.pid!) - before);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: { type: string; code: string } }).error).toMatchObject({
          type: "invalid_request_error",
          code: "request_too_large",
        });
      }
      expect(Math.min(...used)).toBeLessThan(100);
    } finally {
      proc.kill("SIGTERM");
      await proc;
    }
  });

  test("8 MiB of nested arrays is refused with a 400 naming the depth bound in under 50 ms of the gateway's CPU, on chat, Responses and embeddings", async () => {
    const { d, env, key } = await install();
    const { url, proc } = await serve([], { cwd: d, env });
    try {
      const depth = 4 * 1024 * 1024 - 64; // just under server.maxBodyBytes (8 MiB)
      const body = `{"model":"openai/gpt-4o-mini","input":${"[".repeat(depth)}${"]".repeat(depth)}}`;
      await post(url, "/v1/embeddings", { model: "openai/gpt-4o-mini", input: [[1]] }, bearer(key)); // warm up
      for (const path of ["/v1/chat/completions", "/v1/responses", "/v1/embeddings"]) {
        // Reading 8 MiB off the socket alone costs 30–50 ms of ticks on a loaded 2-core machine: the best of five.
        const used: number[] = [];
        for (let i = 0; i < 5; i++) {
          const before = cpuMs(proc.pid!);
          const res = await post(url, path, body, bearer(key));
          used.push(cpuMs(proc.pid!) - before);
          expect(res.status, path).toBe(400);
          const error = ((await res.json()) as { error: { code: string; message: string } }).error;
          expect(error.code).toBe("request_too_large");
          expect(error.message).toContain("at most 64 levels");
        }
        expect(Math.min(...used), path).toBeLessThan(50);
      }
    } finally {
      proc.kill("SIGTERM");
      await proc;
    }
  });
});
