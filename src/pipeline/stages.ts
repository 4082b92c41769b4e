/**
 * The stages of the request pipeline, in the order a JSON answer goes through them (a
 * stream renders before it settles: its row is written when it ends). This list is what runs:
 * pipeline/run.ts walks it, each stage's function in pipeline/stage-runs.ts (a table keyed by
 * these names, so a stage named here without a function, or one without a name, does not
 * compile), as fastify's hook list drives its requests. An endpoint (pipeline/endpoint.ts)
 * plugs in its functions for the stages named in ENDPOINT_STAGES; the pipeline runs the
 * others itself, once for every endpoint. docs/architecture.md "The request pipeline" says
 * what each does.
 */

/**
 * Run once per request: who asks, its body as sent checked for secrets before anything reads
 * it (docs/guardrails.md), what it asks, for which models, and whether the cache answers.
 */
export const REQUEST_STAGES = ["auth", "guardrails", "parse", "route", "cache"] as const;

/** Run per model of the request until one answers (fallbacks, docs/routing.md): its tier's limit and its hold. */
export const MODEL_STAGES = ["limits", "hold"] as const;

/** The answer of one model: a failure here, before any byte went out, moves on to the next model. */
export const ANSWER_STAGES = ["adapter", "settle", "render"] as const;

export const STAGES = [...REQUEST_STAGES, ...MODEL_STAGES, ...ANSWER_STAGES] as const;

export type Stage = (typeof STAGES)[number];

/** What an endpoint contributes: its request form, its routing and hold, its upstream call, its answer. */
export const ENDPOINT_STAGES = ["parse", "route", "hold", "adapter", "render"] as const satisfies readonly Stage[];

export type EndpointStage = (typeof ENDPOINT_STAGES)[number];

/**
 * An endpoint, checked when its module loads (not per request): every stage it must plug in
 * is a function. A typed endpoint cannot miss one; this catches one built by spreading.
 */
export function definesStages<T extends Record<EndpointStage, unknown>>(name: string, endpoint: T): T {
  for (const stage of ENDPOINT_STAGES) {
    if (typeof endpoint[stage] !== "function") throw new Error(`endpoint ${name}: no function for the pipeline stage '${stage}'`);
  }
  return endpoint;
}
