/**
 * The one place an error becomes docs/http.md's error object, for both servers (h3's onError and
 * the node:http chat route): exactly four fields, the request's X-Request-Id and
 * X-RateLimit-*, the error's own headers (Retry-After, x-should-retry, Allow). A gateway bug
 * is logged once with the request id, through the gateway's log (its record's sink), and never
 * shown to the client.
 */
import { GatewayError, internalError, invalidRequest, methodNotAllowed, routeNotFound } from "../core/errors.js";
import { sayOnStderr } from "../core/one-line.js";
import type { RequestState } from "./request-state.js";

export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The error object as docs/http.md defines it, before an API's envelope goes around it. */
export interface ErrorObject {
  message: string;
  type: string;
  code: string | null;
  param?: string | null;
  request_id: string;
}

/** How an API wraps the error object: OpenAI's `{error}` unless an endpoint says otherwise (Anthropic's, Google's). */
export type ErrorEnvelope = (error: ErrorObject, status: number) => unknown;

const openaiEnvelope: ErrorEnvelope = (error) => ({ error });

/**
 * `aborted`: the client already left, so a failure is its hang-up, not a bug worth logging.
 * `withParam`: `server.compat` is not strict, so the object adds OpenAI's `param` (docs/openai-compat.md).
 */
export function errorReply(error: unknown, state: RequestState, aborted: boolean, withParam = false, envelope: ErrorEnvelope = openaiEnvelope): ErrorReply {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const err = error instanceof GatewayError ? error : cause instanceof GatewayError ? cause : fromH3(error);
  if (err.status >= 500 && err.code === "internal_error" && !aborted) {
    reportInternal(state, err.cause ?? error);
  }
  const object = withParam
    ? { message: err.message, type: err.type, code: err.code, param: err.param, request_id: state.id }
    : { message: err.message, type: err.type, code: err.code, request_id: state.id };
  const body = JSON.stringify(envelope(object, err.status));
  const headers: Record<string, string> = { ...state.headers, ...err.headers, "content-type": "application/json" };
  if (err.status === 429) headers["x-ratelimit-reset"] = headers["retry-after"] ?? headers["x-ratelimit-reset"] ?? "0";
  return { status: err.status, headers, body };
}

/** Through the gateway's log when the request is observed (a notice, observability/observer.ts); else one escaped line on stderr. */
function reportInternal(state: RequestState, cause: unknown): void {
  if (state.rec.sink) return state.rec.sink.internalError(state.rec, cause);
  sayOnStderr(`[gateway] ${state.id} internal error: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`);
}

/** Errors h3 raises itself (a route it could not match, a malformed URL) or a bug. */
function fromH3(error: unknown): GatewayError {
  const status = (error as { status?: number } | null)?.status;
  if (status === 404) return routeNotFound("this path");
  if (status === 400) return invalidRequest("Malformed request URL."); // h3 could not decode the path
  if (status === 405) return methodNotAllowed("this method", "this path", "");
  return internalError((error as { cause?: unknown } | null)?.cause ?? error);
}
