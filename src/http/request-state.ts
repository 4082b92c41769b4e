/**
 * What every HTTP response of the gateway starts from, on h3 and on node:http alike: the
 * request id and the headers every response must carry (X-Request-Id, then X-RateLimit-*
 * once a limiter tier answered), and the request's record for its metrics and log line.
 */
import { randomUUID } from "node:crypto";
import type { Guard } from "../guardrails/policy.js";
import { RequestRecord } from "../observability/request-record.js";

export interface RequestState {
  id: string;
  headers: Record<string, string>;
  /** What the request did, for its metrics and log line (observability/observer.ts). */
  rec: RequestRecord;
  /** The secret guardrail of this request, when one is on for its key (pipeline/guardrails.ts). */
  guard?: Guard;
}

export function startRequest(): RequestState {
  const id = `req_${randomUUID().replaceAll("-", "")}`;
  return { id, headers: { "x-request-id": id }, rec: new RequestRecord(id) };
}
