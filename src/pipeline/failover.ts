/**
 * The adapter stage's failover: one attempt per routed endpoint, in the router's order, each
 * attempt's upstream wait timed (the gateway's own time excludes it, observability/timing.ts).
 */
import type { RoutedEndpoint } from "../catalog/catalog.js";
import { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import { timed } from "../observability/timing.js";
import { InvalidAnswer, UpstreamFailure } from "../plugin/failure.js";
import { affinityTicket } from "../upstream/affinity.js";
import { isErrorCode } from "../upstream/failure-reason.js";
import type { Job } from "./endpoint.js";

export async function withFailover<T>(gw: Gateway, ex: Exchange, job: Job, attempt: (e: RoutedEndpoint) => Promise<T>) {
  const rec = ex.state.rec;
  const affinity = affinityTicket(rec.account, job.route, job.body);
  const served = await gw.router.run(
    job.route,
    { byokOnly: job.bill.byokOnly, keyId: job.keyId, signal: ex.signal, requestId: job.requestId, attempts: job.attempts, oneRound: job.moreModels, affinity },
    (e) => timed(gw.obs, rec, attempt, e),
  );
  rec.affinity = affinity?.result ?? null;
  return served;
}

/**
 * Why reading a 200 answer failed, as the router acts on it (docs/limits.md, "A complete
 * answer"). The connection failing while the answer arrives (a reset, the idle timeout; a
 * Node or undici error code) is a retryable failure. The provider saying in its answer that
 * it failed (Anthropic's overloaded_error event) comes as an UpstreamFailure from the adapter.
 * Anything else is an answer the gateway cannot use: an InvalidAnswer, that request's 502,
 * never asked again (it may have been billed upstream).
 */
export function malformed(cause: unknown): GatewayError {
  if (cause instanceof GatewayError) return cause;
  const code = (cause as { code?: unknown } | null)?.code;
  if (isErrorCode(code)) return new UpstreamFailure("failure", true, null, null, code);
  return new InvalidAnswer(cause);
}
