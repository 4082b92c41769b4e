/**
 * How an upstream call failed, as the router and health tracking act on it. Adapters raise
 * these through the contract (plugin/contract.ts `upstreamFailure`); the core raises them for
 * network errors and answers it cannot use.
 */
import { GatewayError } from "../core/errors.js";

/** What one attempt did to an endpoint's health. */
export type Outcome = "success" | "failure" | "rate_limited" | "key_rejected" | "rejected";

export class UpstreamFailure extends GatewayError {
  /** The method and path of the request that got a non-2xx answer ("POST /v1/messages"; never the query): set by the core for the operator's log. */
  at?: string;

  constructor(
    readonly outcome: Outcome,
    readonly retryable: boolean,
    readonly upstreamStatus: number | null,
    readonly retryAfterMs: number | null = null,
    cause?: unknown,
  ) {
    super(503, "upstream_error", "upstream_unavailable", "The model is temporarily unavailable. Retry later.", { cause });
    this.name = "UpstreamFailure";
  }
}

/**
 * A 2xx answer the gateway cannot use: over a size cap, not the provider's format, usage
 * counts that are not counts. That endpoint failed (fail over; health counts it); when no
 * endpoint answered validly the client gets 502, not 503 (docs/limits.md).
 */
export class InvalidAnswer extends UpstreamFailure {
  constructor(cause: unknown) {
    super("failure", true, null, null, cause);
    this.name = "InvalidAnswer";
  }
}
