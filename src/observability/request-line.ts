/**
 * The one log line per request (docs/observability.md), in pino's record shape (`level`, `time`,
 * `msg`) so one reader handles every line of the log. Written here rather than through
 * pino's generic serializer: the fields are fixed, and they are written as bytes straight
 * into the log writer's buffer (observability/line-bytes.ts). The run of fields that is the same for every
 * request of one key, model and status (route to provider) is encoded once and copied while
 * it stays the same, so a line costs a few copies and its numbers, and makes no string
 * (docs/observability.md, "What it costs per request").
 *
 * No field can hold a secret: ids the gateway made, catalog model ids, configured provider
 * ids, numbers. Strings that are not the gateway's own (an account name, a model id) are
 * JSON-escaped. Contents only with `log.bodies`, and never headers.
 */
import { encoded, LineBytes } from "./line-bytes.js";
import type { RequestRecord } from "./request-record.js";
import type { UnboundedCounts } from "../core/chat-request.js";
import type { Attempt } from "../store/index.js";

/** Failed attempts that were followed by another one. */
function failoversOf(rec: RequestRecord): number {
  const a = rec.settled?.attempts;
  let n = 0;
  if (a) for (let i = 0; i < a.length - 1; i++) if (a[i]!.outcome !== "success") n++;
  return n;
}

const HEAD = encoded('{"level":"info","time":');
const REQ_ID = encoded(',"msg":"request","req_id":"');
const UPSTREAM = encoded(',"upstream_ms":');
const OVERHEAD = encoded(',"overhead_ms":');
const PROMPT = encoded(',"prompt_tokens":');
const COMPLETION = encoded(',"completion_tokens":');
const COST = encoded(',"cost_usd":"');
const ATTEMPTS = encoded(',"attempts":');
const FAILOVERS = encoded(',"failovers":');
const REPORTED = encoded(',"reported_usage":{"prompt_tokens":');
const COMMA = encoded(",");
const NO_USAGE = encoded(',"prompt_tokens":null,"completion_tokens":null,"cost_usd":null,"usage_source":null,"outcome":null,"attempts":0');

const FAILED = encoded(',"failed_attempts":[');
const FAILED_PROVIDER = encoded('{"provider":');
const FAILED_REASON = encoded(',"reason":');

const length = (s: string | null): number => (s === null ? 4 : s.length);

/** The attempts, when any failed (the common request has one that succeeded: nothing to look at). */
function failedAttempts(rec: RequestRecord): Attempt[] | null {
  const a = rec.settled?.attempts;
  return a && (a.length > 1 || (a.length === 1 && a[0]!.outcome !== "success")) ? a : null;
}

/** Room for `failed_attempts`: field names, and 6 bytes per character of the provider and the reason. */
function failedBound(attempts: Attempt[] | null): number {
  let n = 0;
  if (attempts) for (const a of attempts) if (a.reason !== undefined) n += 40 + 6 * (a.provider.length + a.reason.length);
  return n;
}

/** `,"failed_attempts":[{"provider":..,"reason":..}, ...]`: why each failed attempt failed (docs/observability.md). */
function writeFailed(out: LineBytes, attempts: Attempt[]): void {
  let first = true;
  for (const a of attempts) {
    if (a.reason === undefined) continue;
    out.bytes(first ? FAILED : COMMA);
    first = false;
    out.bytes(FAILED_PROVIDER);
    out.json(a.provider);
    out.bytes(FAILED_REASON);
    out.json(a.reason);
    out.ascii("}");
  }
  if (!first) out.ascii("]");
}

/**
 * `,"reported_usage":{...}`: the counts the provider reported (or the gateway counted) where a
 * bound cut them (billing/usage-check.ts); the line's own counts are the ones billed.
 */
function writeReported(out: LineBytes, u: UnboundedCounts): void {
  out.bytes(REPORTED);
  out.int(u.prompt_tokens);
  out.bytes(COMPLETION);
  out.int(u.completion_tokens);
  if (u.tool_calls) {
    out.ascii(',"tool_calls":');
    out.ascii(JSON.stringify(u.tool_calls)); // names are checked [a-z0-9_] (billing/usage-check.ts), counts integers
  }
  out.ascii("}");
}

/** Characters of the reported tool calls: each name (a short ASCII name) and its count. */
function reportedChars(u: UnboundedCounts | undefined): number {
  let n = 0;
  if (u?.tool_calls) for (const name of Object.keys(u.tool_calls)) n += 24 + name.length;
  return n;
}

/** Bytes the line can take at most: field names and numbers, and 6 per character of every string (an escape each). */
export function lineBound(rec: RequestRecord): number {
  let chars = rec.id.length + rec.route.length + length(rec.keyId) + length(rec.account) + length(rec.model) + length(rec.provider);
  if (rec.settled) chars += rec.settled.usageSource.length + rec.settled.outcome.length + reportedChars(rec.settled.unbounded);
  if (rec.bodies) chars += length(rec.requestBody) + length(rec.responseBody);
  if (rec.ignored) chars += rec.ignored.length;
  for (const h of rec.guardrails) chars += h.rule.length + 40;
  return 800 + 6 * chars + failedBound(failedAttempts(rec));
}

/** `","route":... ,"latency_ms":` for one (route, status, key, account, model, provider). */
interface Middle {
  route: string;
  status: number;
  keyId: string | null;
  account: string | null;
  model: string | null;
  provider: string | null;
  bytes: Uint8Array;
}

/** `","usage_source":... ,"attempts":` for one (usage source, outcome). */
interface UsageTail {
  source: string;
  outcome: string;
  bytes: Uint8Array;
}

/** Writes request lines; keeps the last encoded runs of fields (one writer per log). */
export class RequestLines {
  private middle: Middle | null = null;
  private usageTail: UsageTail | null = null;

  /** Writes the line into `out`, which has room for `lineBound(rec)` more bytes. */
  write(out: LineBytes, rec: RequestRecord, time: number): void {
    out.bytes(HEAD);
    out.int(time);
    out.bytes(REQ_ID);
    out.ascii(rec.id); // the gateway's own: req_ and hex
    out.bytes(this.middleOf(rec));
    out.millis(rec.endMs);
    out.bytes(UPSTREAM);
    if (rec.waitedMs > 0) out.millis(rec.upstreamMs);
    else out.ascii("null");
    out.bytes(OVERHEAD);
    out.millis(rec.overheadMs());
    this.usage(out, rec);
    out.bytes(FAILOVERS);
    out.int(failoversOf(rec));
    const failed = failedAttempts(rec);
    if (failed) writeFailed(out, failed);
    if (rec.affinity) out.ascii(rec.affinity === "hit" ? ',"affinity":"hit"' : ',"affinity":"miss"'); // upstream/affinity.ts
    if (rec.settled?.unbounded) writeReported(out, rec.settled.unbounded);
    if (rec.ignored) {
      out.ascii(',"ignored":'); // docs/responses.md X-Gateway-Ignored
      out.json(rec.ignored);
    }
    if (rec.guardrails.length > 0) {
      out.ascii(',"guardrails":['); // docs/guardrails.md: rule, action, direction; never the secret
      rec.guardrails.forEach((h, i) => {
        out.ascii(i === 0 ? '{"rule":' : ',{"rule":');
        out.json(h.rule);
        out.ascii(`,"action":"${h.action}","direction":"${h.direction}"}`); // closed sets (guardrails/policy.ts)
      });
      out.ascii("]");
    }
    if (rec.bodies) {
      out.ascii(',"request_body":');
      out.json(rec.requestBody);
      out.ascii(',"response_body":');
      out.json(rec.responseBody);
    }
    out.ascii("}\n");
  }

  private usage(out: LineBytes, rec: RequestRecord): void {
    const s = rec.settled;
    if (!s) return out.bytes(NO_USAGE);
    out.bytes(PROMPT);
    out.int(s.prompt);
    out.bytes(COMPLETION);
    out.int(s.completion);
    out.bytes(COST);
    out.usd(s.cost);
    let t = this.usageTail;
    if (!t || t.source !== s.usageSource || t.outcome !== s.outcome) {
      const b = scratch(s.usageSource.length + s.outcome.length);
      b.ascii('","usage_source":');
      b.json(s.usageSource);
      b.ascii(',"outcome":');
      b.json(s.outcome);
      b.bytes(ATTEMPTS);
      t = this.usageTail = { source: s.usageSource, outcome: s.outcome, bytes: b.buf.subarray(0, b.len) };
    }
    out.bytes(t.bytes);
    out.int(s.attempts.length);
  }

  private middleOf(rec: RequestRecord): Uint8Array {
    const m = this.middle;
    if (
      m &&
      m.route === rec.route &&
      m.status === rec.status &&
      m.keyId === rec.keyId &&
      m.account === rec.account &&
      m.model === rec.model &&
      m.provider === rec.provider
    )
      return m.bytes;
    const b = scratch(rec.route.length + length(rec.keyId) + length(rec.account) + length(rec.model) + length(rec.provider));
    b.ascii('","route":"');
    b.ascii(rec.route); // the gateway's own paths
    b.ascii('","status":');
    b.int(rec.status);
    b.ascii(',"key_id":');
    b.json(rec.keyId);
    b.ascii(',"account":');
    b.json(rec.account);
    b.ascii(',"model":');
    b.json(rec.model);
    b.ascii(',"provider":');
    b.json(rec.provider);
    b.ascii(',"latency_ms":');
    const { route, status, keyId, account, model, provider } = rec;
    this.middle = { route, status, keyId, account, model, provider, bytes: b.buf.subarray(0, b.len) };
    return this.middle.bytes;
  }
}

/** A buffer for `chars` characters of strings to escape and the field names around them. */
const scratch = (chars: number): LineBytes => new LineBytes(Buffer.alloc(200 + 6 * chars));

/** The line as a string (the terminal format, which re-reads it; tests). */
export function requestLine(rec: RequestRecord, time: number): string {
  const out = new LineBytes(Buffer.allocUnsafe(lineBound(rec)));
  new RequestLines().write(out, rec, time);
  return out.buf.toString("latin1", 0, out.len);
}
