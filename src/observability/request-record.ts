/**
 * What one request did, filled in as the pipeline learns it (key, model, provider, upstream
 * waits, usage, cost) and read once when the request is over: the metrics and the request's
 * log line are made from it (observability/observer.ts). Plain fields, no closures: the chat hot path fills
 * one of these per request (docs/observability.md).
 *
 * Only values the gateway chose go into the fields the metrics label with: `model` is a
 * catalog id (set after routing), `provider` a configured instance id. A model id a client
 * sent that routes nowhere never lands here, so it can never become a label value.
 */
import type { UnboundedCounts } from "../core/chat-request.js";
import type { GuardHit } from "../guardrails/policy.js";
import type { Attempt } from "../store/index.js";

/** Where a finished record goes (observability/observer.ts); the record calls it when both halves are in. */
export interface RecordSink {
  finish(rec: RequestRecord): void;
  /** A gateway bug while serving `rec`: logged with its request id and stack (http/error-reply.ts). */
  internalError(rec: RequestRecord, cause: unknown): void;
}

export interface SettledUsage {
  provider: string | null;
  prompt: number;
  completion: number;
  /** nano-USD charged (0 for BYOK and free models). */
  cost: number;
  usageSource: string;
  outcome: string;
  attempts: Attempt[];
  /** The counts before a bound cut them (billing/usage-check.ts), named in the log line; absent: billed as reported. */
  unbounded?: UnboundedCounts;
}

/** One upstream attempt, kept only while tracing is on (observability/tracing.ts). */
export interface AttemptSpan {
  provider: string;
  model: string;
  /** performance.now() at its start, and its length, in ms. */
  start: number;
  ms: number;
  ok: boolean;
}

export class RequestRecord {
  /** performance.now() at the start: every duration below is from here, in ms. */
  readonly t0 = performance.now();
  constructor(readonly id: string) {}

  route = "other";
  status = 0;
  keyId: string | null = null;
  account: string | null = null;
  model: string | null = null;
  provider: string | null = null;
  /** The wait of the attempt that answered (JSON: until the answer was read; stream: its first delta). */
  upstreamMs = 0;
  /** Every attempt's wait together: what the gateway's own time excludes. */
  waitedMs = 0;
  /** When the answer's head went out (JSON: the whole answer; stream: the first byte); -1 not yet. */
  headMs = -1;
  /** When the response was over. */
  endMs = -1;
  /** The tier of a 429 this request got from the limiter (http/rate-limit.ts); null: none or the provider tier. */
  limitedTier: string | null = null;
  /** Whether the request went to its conversation's endpoint (upstream/affinity.ts); null: no choice to make. */
  affinity: "hit" | "miss" | null = null;
  /** What the request asked for that its provider does not have, left out (`X-Gateway-Ignored`, docs/responses.md). */
  ignored: string | null = null;
  /** Request and answer bodies, kept only under `log.bodies` (off by default). */
  bodies = false;
  requestBody: string | null = null;
  responseBody: string | null = null;
  settled: SettledUsage | null = null;
  /** An MCP tool call (docs/mcp.md): its configured server and tool, how it ended, its duration in ms. */
  mcp: { server: string; tool: string; outcome: string; ms: number } | null = null;
  /** Secret guardrail hits (rule, action, direction; never the value), for the log line and metrics (docs/guardrails.md). */
  guardrails: GuardHit[] = [];
  /** Only with `otel.endpoint`: the client's traceparent and the attempts (observability/tracing.ts); null costs nothing. */
  trace: { parent: string | null; attempts: AttemptSpan[] } | null = null;
  /** A bill was opened: the record waits for its settlement too. */
  billed = false;
  sink: RecordSink | null = null;
  /** Wall-clock ms when it was over (both halves in): the log line's time. */
  finishedAt = 0;
  private responded = false;
  private done = false;

  /** One upstream attempt is over (observability/timing.ts); the last call is the attempt that answered. */
  waited(ms: number): void {
    this.upstreamMs = ms;
    this.waitedMs += ms;
  }

  /** The answer's head is being written now. */
  head(status: number): void {
    this.status = status;
    if (this.headMs < 0) this.headMs = performance.now() - this.t0;
  }

  /** The gateway's own time up to the head: the total minus the upstream waits. */
  overheadMs(): number {
    const at = this.headMs < 0 ? this.endMs : this.headMs;
    return Math.max(0, at - this.waitedMs);
  }

  /** The response is over (written, failed or abandoned by the client). */
  respond(): void {
    if (this.responded) return;
    this.responded = true;
    this.endMs = performance.now() - this.t0;
    this.maybeFinish();
  }

  /** The bill was settled (billing/bill.ts): usage, cost and the attempts are known. */
  settle(s: SettledUsage): void {
    this.settled = s;
    if (s.provider) this.provider = s.provider;
    this.maybeFinish();
  }

  private maybeFinish(): void {
    if (this.done || !this.responded || (this.billed && !this.settled)) return;
    this.done = true;
    this.sink?.finish(this);
  }
}
