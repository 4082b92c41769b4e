/**
 * Errors on Google's routes in Google's envelope (google.rpc.Status as the Gemini API sends it,
 * https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes): `{"error": {code, message,
 * status}}` with `code` the HTTP status number and `status` the canonical name, so Google's
 * clients read and retry them as they would Google's own. The gateway's error object rides
 * along (docs/gemini.md, "Errors"): `type` as docs/http.md, its stable code as `reason` (the
 * name Google's ErrorInfo gives one, since `code` is taken), `request_id`, and `param` when
 * the error names a field.
 */
import type { ErrorEnvelope, ErrorObject } from "../../http/error-reply.js";

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  402: "FAILED_PRECONDITION",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "UNIMPLEMENTED",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  431: "INVALID_ARGUMENT",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

function statusName(status: number): string {
  return STATUS[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
}

export function googleError(error: ErrorObject, status: number) {
  const { message, type, code, param, request_id } = error;
  return {
    code: status,
    message,
    status: statusName(status),
    type,
    reason: code,
    request_id,
    ...(param ? { param } : {}),
  };
}

export const googleEnvelope: ErrorEnvelope = (error, status) => ({ error: googleError(error, status) });
