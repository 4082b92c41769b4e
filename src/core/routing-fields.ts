/**
 * The gateway's own request fields (docs/routing.md): `models` (fallback models), `provider`
 * (provider preferences) and `usage: {include}` (the cost in the answer's usage), accepted on
 * chat, Responses and Messages under every `server.compat` mode. They are taken out of the body
 * before the endpoint's schema sees it, so no adapter ever forwards them upstream, and kept
 * beside the request the endpoint builds (`keepRouting`, `routingOf`).
 */
import { z } from "zod";
import { validate } from "./validate.js";

/** USD per 1M tokens, as the config's `pricing` writes prices. */
const Usd = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/, "Expected a decimal USD amount")]);

/** Which endpoints of a model may serve, and in what order (per request, and per model in the config). */
export const ProviderPreferences = z.strictObject({
  order: z.array(z.string().min(1)).optional(),
  only: z.array(z.string().min(1)).optional(),
  ignore: z.array(z.string().min(1)).optional(),
  sort: z.enum(["price", "latency", "throughput"]).optional(),
  allow_fallbacks: z.boolean().optional(),
  max_price: z.strictObject({ prompt: Usd.optional(), completion: Usd.optional() }).optional(),
});
export type ProviderPreferences = z.infer<typeof ProviderPreferences>;

/**
 * A model's preferences in the config (`models[].provider`): with `binding: true` its `only`,
 * `ignore` and `max_price` are limits a request's own may narrow but never widen; without, a
 * request's own win field by field (docs/routing.md, "Binding preferences").
 */
export const ModelPreferences = ProviderPreferences.extend({ binding: z.boolean().optional() });
export type ModelPreferences = z.infer<typeof ModelPreferences>;

/** At most this many models in `models`: each may cost a round of failover. */
const MAX_FALLBACK_MODELS = 8;

export const RoutingFields = z.strictObject({
  models: z.array(z.string().min(1)).min(1).max(MAX_FALLBACK_MODELS).optional(),
  provider: ProviderPreferences.optional(),
  usage: z.strictObject({ include: z.boolean().optional() }).optional(),
});
export type RoutingFields = z.infer<typeof RoutingFields>;

const FIELDS = ["models", "provider", "usage"] as const;

/**
 * Takes the routing fields out of a parsed JSON body (validated, `<field>: <problem>` on a bad
 * one) and fills a missing `model` with the first of `models`. Call before the endpoint's schema.
 */
export function takeRouting(json: unknown): RoutingFields {
  if (!json || typeof json !== "object" || Array.isArray(json)) return {};
  const body = json as Record<string, unknown>;
  const taken: Record<string, unknown> = {};
  for (const f of FIELDS) {
    // An explicit null is absent (clients' extra_body often sends them unset as null).
    if (body[f] !== undefined && body[f] !== null) taken[f] = body[f];
    delete body[f];
  }
  if (Object.keys(taken).length === 0) return {};
  const fields = validate(RoutingFields, taken);
  if ((body.model === undefined || body.model === null) && fields.models) body.model = fields.models[0];
  return fields;
}

const kept = new WeakMap<object, RoutingFields>();

/** Keeps the routing fields beside the request an endpoint built from the body. */
export function keepRouting<T extends object>(req: T, fields: RoutingFields): T {
  if (fields.models || fields.provider || fields.usage) kept.set(req, fields);
  return req;
}

export function routingOf(req: object): RoutingFields {
  return kept.get(req) ?? {};
}

/** The models to try in order: `model`, then `models` (else the config's fallbacks of `model`); each once. */
export function modelsToTry(model: string, fields: RoutingFields, fallbacksOf: (model: string) => string[] | undefined): string[] {
  return [...new Set([model, ...(fields.models ?? fallbacksOf(model) ?? [])])];
}
