/**
 * What every HTTP response of the gateway starts from, on h3 and on node:http alike: the
 * request id and the headers every response must carry (X-Request-Id, then X-RateLimit-*
 * once a limiter tier answered), and the request's record for its metrics and log line.
 */
import { randomUUID } from "node:crypto";
import { RequestRecord } from "../observability/request-record.js";

export interface RequestState {
  id: string;
  headers: Record<string, string>;
  /** What the request did, for its metrics and log line (observability/observer.ts). */
  rec: RequestRecord;
}

export function startRequest(): RequestState {
  const id = `req_${randomUUID().replaceAll("-", "")}`;
  return { id, headers: { "x-request-id": id }, rec: new RequestRecord(id) };
}
