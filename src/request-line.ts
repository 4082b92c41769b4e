/**
 * The one log line per request (contract.md §9), in pino's record shape (`level`, `time`,
 * `msg`) so one reader handles every line of the log. Written here rather than through
 * pino's generic serializer: the fields are fixed, and building them directly measured
 * about half of pino's time per line on the request path (docs/observability.md).
 *
 * No field can hold a secret: ids the gateway made, catalog model ids, configured provider
 * ids, numbers. Strings that are not the gateway's own (an account name) go through
 * JSON.stringify. Contents only with `log.bodies`, and never headers.
 */
import type { RequestRecord } from "./request-record.js";

/** A string from outside the gateway's own vocabulary (a key id, an account, a model id): escaped. */
const str = (v: string | null): string => (v === null ? "null" : JSON.stringify(v));
/** The gateway's own words (routes, provider ids: lowercase, digits, dashes; enums): nothing to escape. */
const own = (v: string | null): string => (v === null ? "null" : `"${v}"`);

/** Exact decimal USD of a nano-USD integer below 2^53 (money.ts nanoToUsd without BigInt, on every request). */
export function usd(nano: number): string {
  const whole = Math.floor(nano / 1e9);
  const frac = nano - whole * 1e9;
  return frac === 0 ? String(whole) : `${whole}.${String(frac).padStart(9, "0").replace(/0+$/, "")}`;
}
const ms = (x: number): number => Math.round(x * 1000) / 1000;

/** Failed attempts that were followed by another one. */
export function failoversOf(rec: RequestRecord): number {
  const a = rec.settled?.attempts;
  let n = 0;
  if (a) for (let i = 0; i < a.length - 1; i++) if (a[i]!.outcome !== "success") n++;
  return n;
}

export function requestLine(rec: RequestRecord, time: number): string {
  const s = rec.settled;
  const usage = s
    ? `"prompt_tokens":${s.prompt},"completion_tokens":${s.completion},"cost_usd":"${usd(s.cost)}","usage_source":${own(s.usageSource)},"outcome":${own(s.outcome)},"attempts":${s.attempts.length}`
    : `"prompt_tokens":null,"completion_tokens":null,"cost_usd":null,"usage_source":null,"outcome":null,"attempts":0`;
  const bodies = rec.bodies ? `,"request_body":${str(rec.requestBody)},"response_body":${str(rec.responseBody)}` : "";
  return (
    `{"level":"info","time":${time},"msg":"request","req_id":"${rec.id}","route":${own(rec.route)},"status":${rec.status},` +
    `"key_id":${str(rec.keyId)},"account":${str(rec.account)},"model":${str(rec.model)},"provider":${own(rec.provider)},` +
    `"latency_ms":${ms(rec.endMs)},"upstream_ms":${rec.waitedMs > 0 ? ms(rec.upstreamMs) : null},"overhead_ms":${ms(rec.overheadMs())},` +
    `${usage},"failovers":${failoversOf(rec)}${bodies}}\n`
  );
}
