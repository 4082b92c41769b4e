/**
 * One model route's request on node:http: its Exchange, its observer record from first byte
 * to settlement, the pipeline with the route's Endpoint, and the error, if any, rendered in
 * the endpoint's terms. Shutdown waits for every request's own settlement (gw.pending), not
 * only for its socket to close.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BUDGET_LEVELS, type BudgetLevel } from "../core/budget-periods.js";
import { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { Exchange } from "../http/exchange.js";
import type { AdapterServices, Endpoint, Parsed } from "./endpoint.js";
import { authenticate } from "../http/authenticate.js";
import type { ErrorEnvelope } from "../http/error-reply.js";
import type { KeyRecord } from "../store/index.js";
import { guardRequest } from "./guardrails.js";
import { runPipeline } from "./run.js";

export function serve<Req extends Parsed, Answer>(gw: Gateway, req: IncomingMessage, res: ServerResponse, endpoint: Endpoint<Req, Answer>): Promise<void> {
  const ex = new Exchange(req, res, gw.config.server.compat !== "strict", gw.config.server);
  gw.obs.begin(ex.state.rec, endpoint.path, req);
  const done = runPipeline(gw, ex, endpoint).catch((err: unknown) => {
    alertIfBudgetRefused(gw, ex, err);
    ex.fail(endpoint.inOwnTerms ? endpoint.inOwnTerms(err) : err, endpoint.errorEnvelope);
  });
  gw.pending.add(done);
  return done.finally(() => {
    gw.pending.delete(done);
    const rec = ex.state.rec;
    gw.obs.respond(rec); // its metrics and log line (observability/observer.ts)
    // A charged request may have crossed a threshold: checked after the answer, off its path (docs/alerts.md).
    if (rec.account && rec.keyId && rec.settled && rec.settled.cost > 0) gw.alerts.settled(rec.account, rec.keyId);
  });
}

/** A 402 whose `param` is a budget level (billing/refusal.ts): that budget's 100 % alert, checked off the request's path (docs/alerts.md). */
function alertIfBudgetRefused(gw: Gateway, ex: Exchange, err: unknown): void {
  const { account, keyId } = ex.state.rec;
  if (!(err instanceof GatewayError) || err.status !== 402 || !account || !keyId) return;
  if ((BUDGET_LEVELS as readonly unknown[]).includes(err.param)) gw.alerts.refused(account, keyId, err.param as BudgetLevel);
}

/**
 * A keyed model route outside the stage list that still answers through the pipeline
 * (count_tokens, pipeline/count.ts): its Exchange and observer record, the key authenticated
 * and counted by its rate limit, its body read within the cap, errors in the API's envelope.
 */
export function serveKeyed(gw: Gateway, req: IncomingMessage, res: ServerResponse, route: KeyedRoute): Promise<void> {
  const ex = new Exchange(req, res, gw.config.server.compat !== "strict", gw.config.server);
  gw.obs.begin(ex.state.rec, route.path, req);
  const done = (async () => {
    const key = await authenticate(gw, ex.state, ex.credential(), () => ex.ip);
    // Counting forwards the text to the provider too: the secret guardrail checks it first (pipeline/guardrails.ts).
    await route.answer(gw, ex, key, guardRequest(gw, ex.state, key, await ex.body(gw.config.server.maxBodyBytes)));
  })().catch((err: unknown) => ex.fail(err, route.errorEnvelope));
  gw.pending.add(done);
  return done.finally(() => {
    gw.pending.delete(done);
    gw.obs.respond(ex.state.rec);
  });
}

export interface KeyedRoute {
  path: string;
  errorEnvelope?: ErrorEnvelope;
  answer(gw: AdapterServices, ex: Exchange, key: KeyRecord, raw: Buffer): Promise<void>;
}
