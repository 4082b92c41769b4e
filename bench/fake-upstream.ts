/**
 * A fast OpenAI-format upstream for the benchmark, run as its own process:
 *   node dist/bench/fake-upstream.js [port]
 * prints {"port":N} once listening. POST /v1/chat/completions answers a fixed, real-shaped
 * chat.completion (or, for `"stream":true`, role chunk + content chunks + finish chunk +
 * usage chunk + `data: [DONE]`). The delay before the answer is switched between phases
 * with POST /__bench/latency?ms=N so one process serves every case. GET /__bench/stats
 * counts requests and TCP connections: a client that reuses connections opens few.
 * POST /__bench/shape?chunks=N&gapMs=M makes streamed answers long (N content events M ms
 * apart, the shape of real LLM traffic); chunks=0 restores the default burst.
 * `--tls`: also an HTTP/2-over-TLS port (certificates made at start, bench/tls.ts; HTTP/1.1 too
 * through ALPN), printed as {"port","tlsPort","caFile"}: the gateway reaches it as it reaches a
 * real provider, while the direct runs and the load generator keep the plain HTTP/1.1 port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import { isMain } from "./main.js";
import { makeCerts } from "./tls.js";
import { ticker } from "./ticker.js";

const CREATED = 1_732_000_000;
const MODEL = "gpt-4o-mini-2024-07-18";
/** The reply text, and how the stream splits it. Exported so checks can compare. */
export const REPLY_PARTS = ["Hello! ", "This is ", "a benchmark ", "reply from ", "the fake upstream."];
export const REPLY_TEXT = REPLY_PARTS.join("");
const USAGE = {
  prompt_tokens: 27,
  completion_tokens: 12,
  total_tokens: 39,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};

const completionBody = Buffer.from(
  JSON.stringify({
    id: "chatcmpl-BENCH0000000000000000000000001",
    object: "chat.completion",
    created: CREATED,
    model: MODEL,
    choices: [{ index: 0, message: { role: "assistant", content: REPLY_TEXT, refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" }],
    usage: USAGE,
    service_tier: "default",
    system_fingerprint: "fp_bench0001",
  }),
);

function chunk(choices: unknown[], usage: unknown = null): string {
  const c = {
    id: "chatcmpl-BENCH0000000000000000000000002",
    object: "chat.completion.chunk",
    created: CREATED,
    model: MODEL,
    service_tier: "default",
    system_fingerprint: "fp_bench0001",
    choices,
    usage,
  };
  return `data: ${JSON.stringify(c)}\n\n`;
}
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ index: 0, delta: d, logprobs: null, finish_reason: finish });

/** Each SSE event pre-encoded; written one write() each, as a real upstream flushes them. */
const streamEvents: Buffer[] = [
  chunk([delta({ role: "assistant", content: "", refusal: null })]),
  ...REPLY_PARTS.map((p) => chunk([delta({ content: p })])),
  chunk([delta({}, "stop")]),
  chunk([], USAGE),
  "data: [DONE]\n\n",
].map((s) => Buffer.from(s));

const STREAM_RE = /"stream"\s*:\s*true/;

/** One content event of a long stream, encoded once: 1,000 streams send 10,000 a second. */
const WORD = Buffer.from(chunk([delta({ content: "word " })]));

type Req = IncomingMessage | Http2ServerRequest;
/** What the handlers use of an HTTP/1.1 or an HTTP/2 (compat) response. */
interface Res {
  writeHead(status: number, headers?: Record<string, string | number>): unknown;
  write(chunk: Buffer): boolean;
  end(chunk: Buffer | string): unknown;
  end(): unknown;
}
const gone = (res: Res) => ("stream" in res ? (res as Http2ServerResponse).stream.destroyed : (res as ServerResponse).destroyed);

/**
 * `chunks` content events `gapMs` apart, then finish, usage and [DONE]. One shared ticker per
 * gap (ticker.ts) rather than a timer per stream: 10,000 streams are one timer and one queue.
 */
function slowStream(res: Res, chunks: number, gapMs: number): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  res.write(streamEvents[0]!);
  let sent = 0;
  ticker(gapMs).add(() => {
    if (gone(res)) return false;
    if (sent++ < chunks) return (res.write(WORD), true);
    for (const e of streamEvents.slice(-3)) res.write(e); // finish, usage, [DONE]
    res.end();
    return false;
  });
}

/** Room for a burst of 10,000 connects (the kernel caps it at net.core.somaxconn). */
const BACKLOG = 4096;

export interface FakePorts {
  port: number;
  tlsPort?: number;
  caFile?: string;
}

export async function startFake(port: number, tls = false): Promise<FakePorts> {
  let latencyMs = 0;
  const shape = { chunks: 0, gapMs: 0 };
  const stats = { requests: 0, connections: 0 };
  const answer = (res: Res, stream: boolean) => {
    if (stream && shape.chunks > 0) return void slowStream(res, shape.chunks, shape.gapMs);
    if (stream) {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
      for (const e of streamEvents) res.write(e);
      res.end();
    } else {
      res.writeHead(200, { "content-type": "application/json", "content-length": completionBody.length });
      res.end(completionBody);
    }
  };
  const handle = (req: Req, res: Res, body: string) => {
    const url = req.url ?? "";
    if (req.method === "POST" && url.startsWith("/__bench/shape")) {
      const q = new URL(url, "http://x").searchParams;
      Object.assign(shape, { chunks: Number(q.get("chunks") ?? 0), gapMs: Number(q.get("gapMs") ?? 0) });
      res.end(JSON.stringify(shape));
    } else if (req.method === "POST" && url.startsWith("/__bench/latency")) {
      latencyMs = Number(new URL(url, "http://x").searchParams.get("ms") ?? 0);
      res.end(JSON.stringify({ latencyMs }));
    } else if (url === "/__bench/stats") {
      res.end(JSON.stringify(stats));
    } else if (req.method === "POST" && url === "/v1/chat/completions") {
      stats.requests++;
      const stream = STREAM_RE.test(body);
      if (latencyMs > 0) setTimeout(answer, latencyMs, res, stream);
      else answer(res, stream);
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
    }
  };
  const onRequest = (req: Req, res: Res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => handle(req, res, body));
  };
  const server = createServer({ keepAliveTimeout: 60_000 }, onRequest);
  server.on("connection", () => stats.connections++);
  const plain = await listen(server, port);
  if (!tls) return { port: plain };
  const certs = makeCerts();
  process.once("exit", certs.cleanup);
  // 100 streams per connection, as providers' fronts advertise; the gateway opens more connections.
  const secure = createSecureServer({ key: certs.key, cert: certs.cert, allowHTTP1: true, settings: { maxConcurrentStreams: 100 } }, (req, res) =>
    onRequest(req, res as unknown as Res),
  );
  secure.on("secureConnection", () => stats.connections++);
  return { port: plain, tlsPort: await listen(secure, 0), caFile: certs.caFile };
}

function listen(server: { listen(o: object, cb: () => void): unknown; address(): unknown }, port: number): Promise<number> {
  return new Promise((resolve) => server.listen({ port, host: "127.0.0.1", backlog: BACKLOG }, () => resolve((server.address() as { port: number }).port)));
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const ports = await startFake(Number(args.find((a) => /^\d+$/.test(a)) ?? 0), args.includes("--tls"));
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => process.exit(0)); // runs the certs' cleanup
  process.stdout.write(`${JSON.stringify(ports)}\n`);
}
