/**
 * Where every request ends up once it is over: its record (observability/request-record.ts) moves the
 * metrics (observability/metrics.ts) and becomes one log line (observability/log.ts). Requests served on node:http
 * (chat, responses, embeddings) report through their Exchange; the h3 routes through the
 * response's `close` (watch, below). docs/observability.md lists the log fields.
 *
 * Finished records are taken in batches (16, or every 250 ms; a scrape and shutdown take
 * what waits first): run in one loop, the metrics and line-writing code stays warm in the
 * CPU's caches between records. Under streamed load, batches of 16 measured about 1 % more
 * throughput than one record at a time (docs/observability.md).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "../config/config.js";
import type { Health } from "../upstream/health.js";
import type { GatewayLog } from "./log.js";
import { Metrics } from "./metrics.js";
import type { RecordSink, RequestRecord } from "./request-record.js";
import { Tracer } from "./tracing.js";

/** The h3 routes' labels: the gateway's own paths, so a client's URL never becomes a label. */
const PLAIN_ROUTES = new Set([
  "/v1/models",
  "/v1/key",
  "/v1/health/providers",
  "/v1/openapi.json",
  "/v1/chat/completions",
  "/v1/embeddings",
  "/v1/responses",
  "/v1/messages",
  "/v1/messages/count_tokens",
  "/metrics",
]);

/** Records taken at once, and the longest a finished record waits (ms). */
const BATCH = 16;
const DRAIN_MS = 250;

function routeOf(path: string): string {
  if (PLAIN_ROUTES.has(path)) return path;
  // h3 serves `/metrics/` as `/metrics`: count it as the route it is (docs/observability.md).
  if (path.length > 1 && path.endsWith("/") && PLAIN_ROUTES.has(path.slice(0, -1))) return path.slice(0, -1);
  if (path.startsWith("/v1/models/")) return "/v1/models/{id}";
  if (path.startsWith("/v1/responses/")) return "/v1/responses/{id}";
  // Google's routes (docs/gemini.md): the list, and a model's methods (countTokens, a model's entry).
  if (path.startsWith("/v1beta/models")) return path === "/v1beta/models" ? path : "/v1beta/models/{model}";
  return "other";
}

export interface ObserverDeps {
  config: Config;
  health: Health;
  /** Configured provider instance ids (the circuit gauge's label values). */
  providers: () => string[];
  now: () => number;
  log: GatewayLog;
}

export class Observer implements RecordSink {
  readonly metrics: Metrics | null;
  readonly log: GatewayLog;
  /** Only with `otel.endpoint`. */
  private readonly tracer: Tracer | null;
  private inflight = 0;
  /** Finished records not yet counted and logged. */
  private finished: RequestRecord[] = [];
  private readonly timer: NodeJS.Timeout | null;
  /** node:http responses an Exchange reports for, though h3 dispatched them: not watched twice. */
  private readonly claimed = new WeakSet<ServerResponse>();

  constructor(private readonly deps: ObserverDeps) {
    this.log = deps.log;
    this.metrics = deps.config.metrics.enabled
      ? new Metrics({
          inflight: () => this.inflight,
          circuits: () => deps.health.snapshot(deps.now(), deps.providers()).providers.map((p) => ({ provider: p.id, open: p.circuit !== "closed" })),
        })
      : null;
    const otel = deps.config.otel;
    this.tracer = otel ? new Tracer(otel, (line) => deps.log.notice("warn", `warning: ${line}`)) : null;
    this.timer = this.metrics || this.log.requests || this.tracer ? setInterval(() => this.drain(), DRAIN_MS).unref() : null;
  }

  /** A request starts being served on `route`. */
  begin(rec: RequestRecord, route: string, req: IncomingMessage | undefined): void {
    rec.route = route;
    rec.sink = this;
    rec.bodies = this.log.bodies;
    this.inflight++;
    if (this.tracer) rec.trace = { parent: (req?.headers.traceparent as string | undefined) ?? null, attempts: [] };
  }

  /** The response is over; the record finishes now or at its settlement. */
  respond(rec: RequestRecord): void {
    this.inflight--;
    rec.respond();
  }

  /** An h3 route: reported when its response closes, unless an Exchange claimed it. */
  watch(res: ServerResponse, rec: RequestRecord, path: string): void {
    this.begin(rec, routeOf(path), res.req);
    res.once("close", () => {
      if (this.claimed.has(res)) return void this.inflight--;
      rec.status ||= res.headersSent ? res.statusCode : 499;
      this.respond(rec);
    });
  }

  claim(res: ServerResponse): void {
    this.claimed.add(res);
  }

  /** One upstream attempt's wait (observability/timing.ts). */
  upstreamWait(rec: RequestRecord, provider: string, waitMs: number): void {
    rec.waited(waitMs);
    this.metrics?.upstreamWait(provider, waitMs);
  }

  finish(rec: RequestRecord): void {
    if (!this.timer) return;
    rec.finishedAt = this.deps.now();
    if (this.finished.push(rec) >= BATCH) this.drain();
  }

  /** An operator notice (stderr on one line, and a record in a JSON log), the stack's credentials scrubbed (log.ts). */
  internalError(rec: RequestRecord, cause: unknown): void {
    const stack = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
    this.log.notice("error", `[gateway] ${rec.id} internal error: ${stack}`, { event: "internal_error", req_id: rec.id });
  }

  /** Counts and logs the finished records. */
  drain(): void {
    const batch = this.finished;
    if (batch.length === 0) return;
    this.finished = [];
    for (const rec of batch) {
      this.metrics?.record(rec);
      if (this.log.requests) this.log.request(rec, rec.finishedAt);
      this.tracer?.export(rec);
    }
  }

  /** The Prometheus text, with every finished request counted; null when metrics are off. */
  async scrape(): Promise<string | null> {
    if (!this.metrics) return null;
    this.drain();
    return this.metrics.render();
  }

  get tracing(): boolean {
    return this.tracer !== null;
  }

  /** Sends the spans still queued. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.drain();
    await this.tracer?.close();
  }
}
