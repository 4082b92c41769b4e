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
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isMain } from "./main.js";

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

/** `chunks` content events `gapMs` apart, then finish, usage and [DONE]. */
function slowStream(res: ServerResponse, chunks: number, gapMs: number): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  res.write(streamEvents[0]);
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    if (sent++ < chunks) return void res.write(WORD);
    clearInterval(timer);
    for (const e of streamEvents.slice(-3)) res.write(e); // finish, usage, [DONE]
    res.end();
  }, gapMs);
}

export function startFake(port: number): Promise<number> {
  let latencyMs = 0;
  const shape = { chunks: 0, gapMs: 0 };
  const stats = { requests: 0, connections: 0 };
  const answer = (res: ServerResponse, stream: boolean) => {
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
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
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
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => handle(req, res, body));
  });
  server.on("connection", () => stats.connections++);
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
}

if (isMain(import.meta.url)) {
  const port = await startFake(Number(process.argv[2] ?? 0));
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}
