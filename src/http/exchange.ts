/**
 * One request on plain node:http, for the chat route: what the pipeline reads (headers,
 * client IP, the body, an abort signal for a client that hangs up) and how it answers (one
 * JSON write with Content-Length, or SSE frames with backpressure). No Web Request/Response
 * in between: converting through them cost about a quarter of the CPU per request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "../config/config.js";
import { readBody } from "./body.js";
import { clientIp } from "./client-ip.js";
import { credentialOf } from "./credential.js";
import { errorReply, type ErrorEnvelope } from "./error-reply.js";
import { requestClosed, requestOpened } from "./in-flight.js";
import { startRequest, type RequestState } from "./request-state.js";
import type { SseSink } from "./sse.js";
import { serverTiming } from "../observability/timing.js";

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" };

export class Exchange implements SseSink {
  readonly state: RequestState = startRequest();
  private readonly aborter = new AbortController();

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    /** Errors carry OpenAI's `param` (`server.compat` openai or passthrough). */
    private readonly withParam: boolean,
    /** Whose X-Forwarded-For to believe for `ip`. */
    private readonly server: Pick<Config["server"], "trustProxy">,
  ) {
    requestOpened();
    // Closed before the answer was complete: the client went away.
    res.once("close", () => {
      requestClosed();
      if (!res.writableEnded) this.aborter.abort();
    });
  }

  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  /** Read only for a request without a valid key (http/authenticate.ts): the hot path never pays for it. */
  get ip(): string {
    return clientIp(this.req, this.server);
  }

  /** The answer's head went out: from here the request can only end, not move to another model. */
  get started(): boolean {
    return this.res.headersSent;
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return typeof v === "string" ? v : v?.[0];
  }

  /** The request's path and query as the client sent them (a route with its model in the path reads it). */
  get url(): string {
    return this.req.url ?? "/";
  }

  /** The gateway key the client sent, wherever its kind of client puts it (http/credential.ts). */
  credential(): string | null | undefined {
    return credentialOf((name) => this.header(name), this.req.url);
  }

  body(limit: number): Promise<Buffer> {
    const reading = readBody(this.req, limit);
    const rec = this.state.rec;
    // Kept for the log line only under log.bodies; otherwise no extra step on the hot path.
    return rec.bodies ? reading.then((raw) => ((rec.requestBody = raw.toString("utf8")), raw)) : reading;
  }

  /** The whole answer in one write; the request's headers (X-Request-Id, X-RateLimit-*, Server-Timing) on it. */
  json(status: number, body: string, headers: Record<string, string> = this.state.headers): void {
    const rec = this.state.rec;
    rec.head(status);
    if (rec.bodies) rec.responseBody = body;
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(body));
    headers["server-timing"] = serverTiming(rec);
    this.res.writeHead(status, headers).end(body);
  }

  /** The stream's head: Server-Timing measured to this first byte (docs/observability.md). */
  startSse(): void {
    this.state.rec.head(200);
    this.state.headers["server-timing"] = serverTiming(this.state.rec);
    this.res.writeHead(200, Object.assign(this.state.headers, SSE_HEADERS));
  }

  write(frame: string): Promise<void> | undefined {
    if (this.res.write(frame)) return undefined;
    const res = this.res;
    return new Promise((resolve) => {
      const go = () => {
        res.off("drain", go).off("close", go);
        resolve();
      };
      res.on("drain", go).on("close", go);
    });
  }

  end(frame: string): void {
    this.res.end(frame);
  }

  /** docs/http.md's error object, rendered as h3's onError renders it (http/error-reply.ts). */
  fail(error: unknown, envelope?: ErrorEnvelope): void {
    const reply = errorReply(error, this.state, this.signal.aborted, this.withParam, envelope);
    const res = this.res;
    this.state.rec.status ||= reply.status;
    if (res.headersSent) return void res.destroy(); // mid-stream: nothing valid is left to send
    if (this.signal.aborted) return;
    this.json(reply.status, reply.body, reply.headers);
  }
}
