/**
 * Upstream HTTP: one undici Agent (keep-alive pools per origin) with connect, first-byte
 * and idle timeouts; failures become an `UpstreamFailure` the router can act on. The
 * client never sees upstream detail: the failure renders as a generic 503 if it escapes.
 */
import { Agent, errors as undiciErrors, request, type Dispatcher } from "undici";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { GatewayError } from "./errors.js";
import type { ErrorClass, ProviderPlugin, UpstreamEvent, UpstreamRequest } from "./provider.js";
import type { Outcome } from "./health.js";

export class UpstreamFailure extends GatewayError {
  constructor(
    readonly outcome: Outcome,
    readonly retryable: boolean,
    readonly upstreamStatus: number | null,
    readonly retryAfterMs: number | null = null,
    cause?: unknown,
  ) {
    super(503, "upstream_error", "upstream_unavailable", "The model is temporarily unavailable. Retry later.", { cause });
    this.name = "UpstreamFailure";
  }
}

export interface Timeouts {
  connect: number;
  firstByte: number;
  idle: number;
}

export type UpstreamResponse = Dispatcher.ResponseData;

const MAX_ERROR_BODY = 64 * 1024;

export class Upstream {
  private agent: Agent;

  constructor(timeouts: Timeouts) {
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connections: 512,
      pipelining: 1,
      connect: { timeout: timeouts.connect },
      headersTimeout: timeouts.firstByte,
      bodyTimeout: timeouts.idle,
    });
  }

  /** Sends the request; a non-2xx answer becomes an UpstreamFailure classified by the plugin. */
  async send(req: UpstreamRequest, plugin: ProviderPlugin, signal: AbortSignal): Promise<UpstreamResponse> {
    let res: UpstreamResponse;
    try {
      res = await request(req.url, {
        method: req.method ?? "POST",
        headers: req.headers,
        body: req.body,
        signal,
        dispatcher: this.agent,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new UpstreamFailure("failure", true, null, null, networkCause(err));
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return res;
    const body = await readErrorBody(res);
    const cls = plugin.classifyError?.(res.statusCode, body) ?? classifyStatus(res.statusCode);
    const outcome: Outcome = cls.keyRejected ? "key_rejected" : !cls.retryable ? "rejected" : res.statusCode === 429 ? "rate_limited" : "failure";
    throw new UpstreamFailure(outcome, cls.retryable, res.statusCode, retryAfterMs(res.headers) ?? cls.retryAfterMs ?? null);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** contract.md §6: 408/429/5xx/529 and network errors retry; 401/403 mean our key is bad. */
export function classifyStatus(status: number): ErrorClass {
  if (status === 401 || status === 403) return { retryable: true, keyRejected: true };
  if (status === 408 || status === 409 || status === 429 || status >= 500) return { retryable: true };
  return { retryable: false };
}

function networkCause(err: unknown): string {
  if (err instanceof undiciErrors.UndiciError) return err.code;
  return (err as { code?: string }).code ?? "network_error";
}

async function readErrorBody(res: UpstreamResponse): Promise<unknown> {
  let text = "";
  try {
    for await (const chunk of res.body) {
      if (text.length < MAX_ERROR_BODY) text += chunk.toString();
    }
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `retry-after-ms` (OpenAI, Azure), then `retry-after` as seconds or an HTTP date. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | null {
  const text = (name: string) => {
    const v = headers[name];
    return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined; // Number("") would be 0
  };
  const ms = Number(text("retry-after-ms"));
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = text("retry-after");
  if (value === undefined) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/** SSE bytes -> events with JSON data (eventsource-parser does the framing). `[DONE]` ends it. */
export async function* decodeSse(body: AsyncIterable<Uint8Array>): AsyncIterable<UpstreamEvent> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (queue.length) {
      const e = queue.shift()!;
      if (e.data === "[DONE]") return;
      yield { event: e.event, data: parseJson(e.data) };
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamFailure("failure", true, null, null, "malformed stream event");
  }
}
