/**
 * The request pipeline: the stages of pipeline/stages.ts, walked in their order, each the
 * function of pipeline/stage-runs.ts of its name, over one Flow (pipeline/flow.ts):
 * auth → guardrails → parse → route → cache once, then per model of the request (its fallbacks) limits →
 * hold → adapter (with failover) → settle → render until one answers. Every model route runs
 * it with its Endpoint (pipeline/endpoint.ts). It runs on plain node:http (http/exchange.ts):
 * the hot path has no Web Request/Response. An error thrown here is rendered by the caller
 * (pipeline/serve.ts, Exchange.fail).
 */
import { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import type { Endpoint, Parsed } from "./endpoint.js";
import { ANSWERED, newFlow, type Flow } from "./flow.js";
import { RUNS } from "./stage-runs.js";
import { ANSWER_STAGES, MODEL_STAGES, REQUEST_STAGES, type Stage } from "./stages.js";

export async function runPipeline<Req extends Parsed, Answer>(gw: Gateway, ex: Exchange, ep: Endpoint<Req, Answer>): Promise<void> {
  const f = newFlow(gw, ex, ep) as unknown as Flow;
  if (await walk(f, REQUEST_STAGES)) return;
  for (f.model = 0; ; f.model++) {
    if (await walk(f, MODEL_STAGES)) return;
    try {
      return void (await walk(f, ANSWER_STAGES));
    } catch (err) {
      // The next model, while nothing went to the client yet (docs/routing.md): this model's hold is dropped, not billed.
      if (f.model + 1 < f.routes.length && movesOn(err, ex)) {
        await f.job.bill.release();
        continue;
      }
      const httpStatus = err instanceof GatewayError ? err.status : 500;
      const status = ex.signal.aborted ? "cancelled" : "error";
      await f.job.bill.settle({ endpoint: null, usage: null, usageSource: "none", status, httpStatus, attempts: f.job.attempts }, gw.now());
      throw err;
    }
  }
}

/** Runs the stages in order; true when one answered the request. */
async function walk(f: Flow, stages: readonly Stage[]): Promise<boolean> {
  for (const stage of stages) {
    const next = RUNS[stage](f);
    if ((next instanceof Promise ? await next : next) === ANSWERED) return true;
  }
  return false;
}

/** Every endpoint of the model failed (docs/limits.md's 503) and the client has no byte of an answer yet. */
function movesOn(err: unknown, ex: Exchange): boolean {
  return err instanceof GatewayError && err.code === "upstream_unavailable" && !ex.signal.aborted && !ex.started;
}
