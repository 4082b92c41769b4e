/**
 * Upstream HTTP: https origins over HTTP/2 (h2-origin.ts: up to `streamsPerConnection` streams
 * per connection), http:// origins and servers without h2 through one undici Agent (HTTP/1.1
 * keep-alive pools per origin); connect, first-byte and idle timeouts on both. Failures become
 * an `UpstreamFailure` the router can act on. The client never sees upstream detail: the
 * failure renders as a generic 503 if it escapes. docs/limits.md, "HTTP/2 to providers".
 */
import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";
import type { Agent } from "undici";
import type { ErrorClass, ProviderPlugin, UpstreamRequest } from "../plugin/contract.js";
import { UpstreamFailure, type Outcome } from "../plugin/failure.js";
import { H2Origins, Http1Only } from "./h2-origin.js";
import { shownPath } from "./base-url.js";

export interface Timeouts {
  connect: number;
  firstByte: number;
  idle: number;
}

/** config `server.upstream`: the pool's shape (docs/limits.md). */
export interface PoolSettings {
  maxConnections?: number;
  http2?: boolean;
  streamsPerConnection?: number;
  /** A PEM file of CAs trusted besides Node's own (a private CA in front of a provider, the bench's fake). */
  caFile?: string;
  /** The providers' base URLs: when every one is https over HTTP/2, warm() leaves undici unloaded. */
  baseUrls?: string[];
}

export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

const MAX_ERROR_BODY = 64 * 1024;

type Undici = typeof import("undici");

export class Upstream {
  /**
   * undici takes ~40 ms of CPU to import (110 modules): loaded on first use, or by warm() just
   * after the server is ready, so it does not delay the start (docs/architecture.md, Memory).
   */
  private client: Promise<{ undici: Undici; agent: Agent }> | undefined;
  private readonly h2: H2Origins | undefined;
  private readonly tls: SecureContext | undefined;

  constructor(
    private readonly timeouts: Timeouts,
    private readonly pool: PoolSettings = {},
  ) {
    // Node's `ca` replaces its roots: the private CA is trusted besides them, not instead. One
    // context for every connection: built per connection, its ~150 roots cost ~25 ms of CPU each time.
    this.tls = pool.caFile ? createSecureContext({ ca: [...rootCertificates, readFileSync(pool.caFile, "utf8")] }) : undefined;
    const streamsPerConnection = pool.streamsPerConnection ?? 100;
    if (pool.http2 !== false) this.h2 = new H2Origins({ ...timeouts, streamsPerConnection, secureContext: this.tls });
  }

  /**
   * Loads the HTTP/1.1 client now, so the first upstream call does not wait for it; not when
   * every provider is https over HTTP/2: undici would be ~20 MB of RSS no request uses (it still
   * loads on first use, for an http:// BYOK endpoint or a server without h2).
   */
  warm(): void {
    if (this.h2 && this.pool.baseUrls?.every((u) => u.startsWith("https:"))) return;
    void this.load();
  }

  private load(): Promise<{ undici: Undici; agent: Agent }> {
    return (this.client ??= import("undici").then((undici) => ({
      undici,
      agent: new undici.Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        connections: this.pool.maxConnections ?? 10_000,
        pipelining: 1,
        connect: { timeout: this.timeouts.connect, ...(this.tls && { secureContext: this.tls }) },
        headersTimeout: this.timeouts.firstByte,
        bodyTimeout: this.timeouts.idle,
      }),
    })));
  }

  /** Sends the request; a non-2xx answer becomes an UpstreamFailure classified by the plugin. */
  async send(req: UpstreamRequest, plugin: ProviderPlugin, signal: AbortSignal): Promise<UpstreamResponse> {
    let res: UpstreamResponse;
    try {
      res = await this.request(req, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new UpstreamFailure("failure", true, null, null, networkCause(err));
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return res;
    const body = await readErrorBody(res);
    const cls = plugin.classifyError?.(res.statusCode, body) ?? classifyStatus(res.statusCode);
    const outcome: Outcome = cls.keyRejected ? "key_rejected" : !cls.retryable ? "rejected" : res.statusCode === 429 ? "rate_limited" : "failure";
    const failure = new UpstreamFailure(outcome, cls.retryable, res.statusCode, retryAfterMs(res.headers) ?? cls.retryAfterMs ?? null);
    failure.at = `${req.method ?? "POST"} ${shownPath(req.url)}`;
    throw failure;
  }

  private async request(req: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse> {
    const method = req.method ?? "POST";
    if (this.h2 && req.url.startsWith("https:")) {
      const url = new URL(req.url);
      try {
        if (!this.h2.h1Only.has(url.origin)) return await this.h2.request(url, method, req.headers, req.body, signal);
      } catch (err) {
        if (!(err instanceof Http1Only)) throw err;
      }
    }
    const { undici, agent } = await this.load();
    return undici.request(req.url, { method, headers: req.headers, body: req.body, signal, dispatcher: agent });
  }

  async close(): Promise<void> {
    this.h2?.close();
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
function networkCause(err: unknown): string {
  return (err as { code?: string }).code ?? "ERR_NETWORK";
}

async function readErrorBody(res: UpstreamResponse): Promise<unknown> {
  let text = "";
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (text.length < MAX_ERROR_BODY) text += chunk.toString();
    }
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A whole (small) body as JSON, a SyntaxError if it is not: the model lists of `doctor` and `models sync`. */
export async function bodyJson(res: UpstreamResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of res.body as AsyncIterable<Buffer>) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
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
