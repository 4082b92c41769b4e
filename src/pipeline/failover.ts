/**
 * The adapter stage's failover: one attempt per routed endpoint, in the router's order, each
 * attempt's upstream wait timed (the gateway's own time excludes it, observability/timing.ts).
 */
import type { RoutedEndpoint } from "../catalog/catalog.js";
import { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import { timed } from "../observability/timing.js";
import { UpstreamFailure } from "../plugin/failure.js";
import type { Job } from "./endpoint.js";

export function withFailover<T>(gw: Gateway, ex: Exchange, job: Job, attempt: (e: RoutedEndpoint) => Promise<T>) {
  return gw.router.run(job.route, { byokOnly: job.bill.byokOnly, keyId: job.keyId, signal: ex.signal, requestId: job.requestId, attempts: job.attempts }, (e) =>
    timed(gw.obs, ex.state.rec, attempt, e),
  );
}

/**
 * An upstream answer the adapter cannot read, or a stream that reports an error (Anthropic's
 * overloaded_error event), is that endpoint's failure: fail over, and retry in later rounds.
 * Answers the core refuses (over a cap, bad usage) are InvalidAnswer already.
 */
export function malformed(cause: unknown): GatewayError {
  return cause instanceof GatewayError ? cause : new UpstreamFailure("failure", true, null, null, cause);
}
