/**
 * Gemini error classes (https://ai.google.dev/gemini-api/docs/generate-content/api-errors).
 * Bodies are google.rpc.Status: {error: {code, message, status, details: [{@type, reason}]}}.
 * A bad key is not a 401 here: it is 400 INVALID_ARGUMENT with reason API_KEY_INVALID.
 */
import type { ErrorClass } from "../../src/plugin/contract.js";

/** ErrorInfo reasons that mean the key itself, not the request, is at fault. */
const KEY_REASONS = new Set(["API_KEY_INVALID", "API_KEY_EXPIRED", "API_KEY_SERVICE_BLOCKED", "SERVICE_DISABLED", "CONSUMER_SUSPENDED"]);

interface RpcStatus {
  status?: unknown;
  details?: unknown;
}

function rpcStatus(body: unknown): RpcStatus {
  const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  return typeof error === "object" && error !== null ? (error as RpcStatus) : {};
}

function reasons(status: RpcStatus): string[] {
  if (!Array.isArray(status.details)) return [];
  return status.details.flatMap((d: unknown) => {
    const reason = typeof d === "object" && d !== null ? (d as { reason?: unknown }).reason : undefined;
    return typeof reason === "string" ? [reason] : [];
  });
}

export function classifyError(status: number, body: unknown): ErrorClass {
  const rpc = rpcStatus(body);
  const keyRejected: ErrorClass = { retryable: true, keyRejected: true };
  if (reasons(rpc).some((r) => KEY_REASONS.has(r))) return keyRejected;
  // 400 FAILED_PRECONDITION: the key's project has no billing where it calls from; 402: prepaid credit is gone.
  if (status === 400 && rpc.status === "FAILED_PRECONDITION") return keyRejected;
  if (status === 401 || status === 402 || status === 403) return keyRejected;
  if (status === 408 || status === 429 || status >= 500) return { retryable: true };
  return { retryable: false };
}
