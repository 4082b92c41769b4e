/**
 * The stages of the request pipeline, in the order a JSON answer goes through them (a
 * stream renders before it settles: its row is written when it ends). pipeline/run.ts runs
 * them; an endpoint (pipeline/endpoint.ts) plugs in its functions for the stages named in
 * ENDPOINT_STAGES, and the pipeline runs the others itself, once for every endpoint.
 * docs/architecture.md "The request pipeline" says what each does.
 */
export const STAGES = ["auth", "parse", "route", "cache", "limits", "hold", "adapter", "settle", "render"] as const;

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
