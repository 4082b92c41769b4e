/**
 * Upstream HTTP: one undici Agent (keep-alive pools per origin) with connect, first-byte
 * and idle timeouts; failures become an `UpstreamFailure` the router can act on. The
 * client never sees upstream detail: the failure renders as a generic 503 if it escapes.
 */
import type { Agent, Dispatcher } from "undici";
import type { ErrorClass, ProviderPlugin, UpstreamRequest } from "../plugin/contract.js";
import { UpstreamFailure, type Outcome } from "../plugin/failure.js";

export interface Timeouts {
  connect: number;
  firstByte: number;
  idle: number;
}

export type UpstreamResponse = Dispatcher.ResponseData;

const MAX_ERROR_BODY = 64 * 1024;

type Undici = typeof import("undici");

export class Upstream {
  /**
   * undici takes ~40 ms of CPU to import (110 modules): loaded on first use, or by warm() just
   * after the server is ready, so it does not delay the start (docs/architecture.md, Memory).
   */
  private client: Promise<{ undici: Undici; agent: Agent }> | undefined;

  constructor(
    private readonly timeouts: Timeouts,
    private readonly connections = 10_000,
  ) {}

  /** Loads the HTTP client now, so the first upstream call does not wait for it. */
  warm(): void {
    void this.load();
  }

  private load(): Promise<{ undici: Undici; agent: Agent }> {
    return (this.client ??= import("undici").then((undici) => ({
      undici,
      agent: new undici.Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        connections: this.connections,
        pipelining: 1,
        connect: { timeout: this.timeouts.connect },
        headersTimeout: this.timeouts.firstByte,
        bodyTimeout: this.timeouts.idle,
      }),
    })));
  }

  /** Sends the request; a non-2xx answer becomes an UpstreamFailure classified by the plugin. */
  async send(req: UpstreamRequest, plugin: ProviderPlugin, signal: AbortSignal): Promise<UpstreamResponse> {
    const { undici, agent } = await this.load();
    let res: UpstreamResponse;
    try {
      res = await undici.request(req.url, { method: req.method ?? "POST", headers: req.headers, body: req.body, signal, dispatcher: agent });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new UpstreamFailure("failure", true, null, null, networkCause(undici, err));
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return res;
    const body = await readErrorBody(res);
    const cls = plugin.classifyError?.(res.statusCode, body) ?? classifyStatus(res.statusCode);
    const outcome: Outcome = cls.keyRejected ? "key_rejected" : !cls.retryable ? "rejected" : res.statusCode === 429 ? "rate_limited" : "failure";
    throw new UpstreamFailure(outcome, cls.retryable, res.statusCode, retryAfterMs(res.headers) ?? cls.retryAfterMs ?? null);
  }

  async close(): Promise<void> {
    if (!this.client) return;
    const { agent } = await this.client;
    await agent.close();
  }
}

/** docs/limits.md: 408/429/5xx/529 and network errors retry; 401/403 mean our key is bad. */
function classifyStatus(status: number): ErrorClass {
  if (status === 401 || status === 403) return { retryable: true, keyRejected: true };
  if (status === 408 || status === 409 || status === 429 || status >= 500) return { retryable: true };
  return { retryable: false };
}

/** The error's code only (failure-reason.ts reads it): undici's messages may hold the URL. */
function networkCause(undici: Undici, err: unknown): string {
  if (err instanceof undici.errors.UndiciError) return err.code;
  return (err as { code?: string }).code ?? "ERR_NETWORK";
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
