/**
 * Why an attempt failed, in one word the operator can act on (docs/observability.md, "Why a
 * request failed"): the request line lists it per failed attempt, the failure notice and
 * GET /v1/health/providers show the latest. Made from the status or the network error's code
 * only, never from upstream text, a URL or a key.
 */
import { InvalidAnswer, type UpstreamFailure } from "../plugin/failure.js";

/** Node's and undici's error codes (https://undici.nodejs.org/#/docs/api/Errors) by what they mean. */
const BY_CODE: Record<string, string> = {
  ECONNREFUSED: "connection_refused",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  EAI_FAIL: "dns",
  ETIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  ECONNRESET: "reset",
  EPIPE: "reset",
  UND_ERR_SOCKET: "reset",
  UND_ERR_CLOSED: "reset",
  // HTTP/2 (src/upstream/h2-origin.ts): the stream or the whole connection was reset or went away.
  ERR_HTTP2_STREAM_ERROR: "reset",
  ERR_HTTP2_SESSION_ERROR: "reset",
  ERR_HTTP2_GOAWAY_SESSION: "reset",
  ERR_HTTP2_STREAM_CANCEL: "reset",
  EHOSTUNREACH: "unreachable",
  ENETUNREACH: "unreachable",
};

/** A network error's code as a reason; codes of certificate and TLS failures all read `tls`. */
function reasonOfCode(code: string): string {
  const known = BY_CODE[code];
  if (known) return known;
  if (/CERT|TLS|SSL|^UNABLE_TO_/.test(code)) return "tls";
  return "network";
}

/**
 * A Node or undici error code (`ECONNRESET`, `UND_ERR_SOCKET`, OpenSSL's `UNABLE_TO_VERIFY_LEAF_SIGNATURE`
 * for a certificate no trusted CA signed), as opposed to an adapter's message.
 */
export const isErrorCode = (s: unknown): s is string =>
  typeof s === "string" && /^(E[A-Z_]+|UND_ERR_[A-Z_]+|ERR_[A-Z0-9_]+|[A-Z_]*CERT[A-Z_]*|UNABLE_TO_[A-Z_]+)$/.test(s);

/** The reason of one failed attempt; `provider_error` when the provider said so inside its answer (an error event). */
export function failureReason(err: UpstreamFailure): string {
  if (err instanceof InvalidAnswer) return "invalid_answer";
  if (err.upstreamStatus !== null) return `http_${err.upstreamStatus}`;
  return isErrorCode(err.cause) ? reasonOfCode(err.cause) : "provider_error";
}
