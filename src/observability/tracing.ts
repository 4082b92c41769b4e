/**
 * OpenTelemetry traces, optional (`otel.endpoint`): one SERVER span per request and one
 * CLIENT span per upstream attempt under it, sent as OTLP/HTTP with the JSON encoding to
 * `<endpoint>/v1/traces`. A client's W3C `traceparent` is continued. Off by default, and
 * then nothing is recorded: requests carry no span state at all (observability/request-record.ts `trace`
 * stays null). Spans are built from the finished request record, so the request path pays
 * only for noting each attempt's times. Why no OpenTelemetry SDK: docs/observability.md.
 */
import { randomBytes } from "node:crypto";
import type { Config } from "../config/config.js";
import type { RequestRecord } from "./request-record.js";

/** What the exporter keeps waiting at most; past it, spans are dropped (a collector that is down). */
const MAX_QUEUED = 4096;
const BATCH = 512;
const EVERY_MS = 1000;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

type Attr = { key: string; value: { stringValue: string } | { intValue: string } };
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attr[];
  status: { code: number };
}

const SERVER = 2;
const CLIENT = 3;
const OK = 1;
const ERROR = 2;

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
/** performance.now() ms → epoch ns, as OTLP's JSON encoding wants it (a decimal string). */
const nanos = (perfMs: number) => BigInt(Math.round((performance.timeOrigin + perfMs) * 1e6)).toString();
const str = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const int = (key: string, v: number): Attr => ({ key, value: { intValue: String(v) } });

function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, "");
  return base.endsWith("/v1/traces") ? base : `${base}/v1/traces`;
}

export class Tracer {
  private queue: Span[] = [];
  private sending: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private readonly url: string;
  private lastError = -Infinity;
  dropped = 0;

  constructor(
    private readonly config: NonNullable<Config["otel"]>,
    private readonly warn: (message: string) => void,
  ) {
    this.url = tracesUrl(config.endpoint);
    this.timer = setInterval(() => void this.flush(), EVERY_MS).unref();
  }

  /** The request's spans, from its finished record. */
  export(rec: RequestRecord): void {
    const parent = rec.trace?.parent ? TRACEPARENT.exec(rec.trace.parent) : null;
    const traceId = parent?.[1] ?? hex(16);
    const spanId = hex(8);
    const s = rec.settled;
    const attributes = [str("gateway.request_id", rec.id), str("http.route", rec.route), int("http.response.status_code", rec.status)];
    if (rec.model) attributes.push(str("gen_ai.request.model", rec.model));
    if (rec.provider) attributes.push(str("gen_ai.provider.name", rec.provider));
    if (s) attributes.push(int("gen_ai.usage.input_tokens", s.prompt), int("gen_ai.usage.output_tokens", s.completion), int("gateway.cost_nano_usd", s.cost));
    this.push({
      traceId,
      spanId,
      ...(parent && { parentSpanId: parent[2] }),
      name: rec.route,
      kind: SERVER,
      startTimeUnixNano: nanos(rec.t0),
      endTimeUnixNano: nanos(rec.t0 + rec.endMs),
      attributes,
      status: { code: rec.status >= 500 ? ERROR : OK },
    });
    for (const a of rec.trace?.attempts ?? []) {
      this.push({
        traceId,
        spanId: hex(8),
        parentSpanId: spanId,
        name: `upstream ${a.provider}`,
        kind: CLIENT,
        startTimeUnixNano: nanos(a.start),
        endTimeUnixNano: nanos(a.start + a.ms),
        attributes: [str("gateway.request_id", rec.id), str("gen_ai.provider.name", a.provider), str("gen_ai.request.model", a.model)],
        status: { code: a.ok ? OK : ERROR },
      });
    }
  }

  private push(span: Span): void {
    if (this.queue.length >= MAX_QUEUED) return void this.dropped++;
    this.queue.push(span);
    if (this.queue.length >= BATCH) void this.flush();
  }

  /** Sends what is queued; one request at a time, in order. */
  flush(): Promise<void> {
    if (this.queue.length === 0) return this.sending;
    const spans = this.queue.splice(0);
    this.sending = this.sending.then(() => this.send(spans));
    return this.sending;
  }

  private async send(spans: Span[]): Promise<void> {
    const body = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [str("service.name", this.config.serviceName)] },
          scopeSpans: [{ scope: { name: "llm-gateway" }, spans }],
        },
      ],
    });
    try {
      const res = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...this.config.headers },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      if (!res.ok) this.onError(`otel: the collector answered HTTP ${res.status}; ${spans.length} spans dropped`);
    } catch (err) {
      this.onError(`otel: cannot send spans to ${this.url} (${(err as Error).message}); ${spans.length} spans dropped`);
    }
  }

  /** A collector that is down is said at most once a minute. */
  private onError(message: string): void {
    const now = Date.now();
    if (now - this.lastError < 60_000) return;
    this.lastError = now;
    this.warn(message);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
