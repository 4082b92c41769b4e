/**
 * Anthropic's HTTP errors (https://docs.anthropic.com/en/api/errors): 429 rate_limit_error,
 * 500 api_error, 504 timeout_error and 529 overloaded_error are passing; 401/403 mean the
 * key is bad; an exhausted balance is the key's problem too, whatever status carries it.
 * Only classifies: the client never sees this body (the core's messages are generic).
 */
import type { ErrorClass } from "../../src/plugin/contract.js";

interface WireError {
  error?: { type?: unknown; message?: unknown; details?: { error_code?: unknown } };
}

const keyRejected: ErrorClass = { retryable: true, keyRejected: true };

/** "Your credit balance is too low to access the Anthropic API." arrives as a 400 invalid_request_error. */
function creditExhausted(body: unknown): boolean {
  const message = typeof body === "string" ? body : (body as WireError | null)?.error?.message;
  return typeof message === "string" && /credit balance is too low/i.test(message);
}

/** A workspace spend cap keeps failing until it resets, unlike a rate limit. */
function spendCapReached(body: unknown): boolean {
  return (body as WireError | null)?.error?.details?.error_code === "enforced_spend_limit_reached";
}

export function classifyError(status: number, body: unknown): ErrorClass {
  if (status === 401 || status === 403 || status === 402) return keyRejected; // 402 billing_error
  if (status === 400 && creditExhausted(body)) return keyRejected;
  if (status === 429 && spendCapReached(body)) return keyRejected;
  if (status === 408 || status === 409 || status === 429 || status >= 500) return { retryable: true };
  // 400 invalid_request_error, 404 not_found_error, 413 request_too_large, 422: the request itself.
  return { retryable: false };
}
