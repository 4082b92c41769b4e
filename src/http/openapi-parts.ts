/**
 * The pieces every route's part of GET /v1/openapi.json is built from: JSON Schema from the
 * zod schemas that validate requests (so the document cannot drift from the code), the
 * error answer, the rate-limit headers and the bearer requirement. Each endpoint folder
 * describes its own paths with these; app/openapi.ts assembles the document.
 */
import { z } from "zod";
import { RoutingFields } from "../core/routing-fields.js";

export const json = (schema: z.ZodType): Record<string, unknown> =>
  z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any", io: "input" }) as Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const describe = (schema: Record<string, unknown>, description: string) => ({ ...schema, description });

export const bearer = [{ bearerAuth: [] }];

export const rateLimitHeaders = Object.fromEntries(
  ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"].map((h) => [h, { schema: { type: "integer" } }]),
);

/** The response cache's answer header and request header (docs/cache.md), on routes with a cache. */
export const cacheHeaders = {
  "X-Gateway-Cache": {
    description:
      "While the config's `cache.enabled` is on: `hit` (answered from the response cache, no upstream call, charged 0), `miss` (went upstream; the answer is kept when it succeeds) or `bypass` (this request may not use the cache: the key did not opt in, `n > 1`, a non-zero or absent temperature without `--cache-nondeterministic`, or `Cache-Control: no-store`).",
    schema: { type: "string", enum: ["hit", "miss", "bypass"] },
  },
};

export const cacheControlParameter = {
  name: "Cache-Control",
  in: "header",
  required: false,
  description: "`no-cache`: do not answer from the response cache, but keep this answer; `no-store`: neither (docs/cache.md).",
  schema: { type: "string" },
};
/** A model route's answer: the rate-limit headers, and on a non-streamed answer its charge (docs/routing.md). */
export const answerHeaders = {
  ...rateLimitHeaders,
  "X-Gateway-Cost": { description: "The request's charge in USD, a decimal string (`0` for BYOK); non-streamed answers", schema: { type: "string" } },
};

/** A request schema with the gateway's own fields (`models`, `provider`, `usage`; docs/routing.md), accepted under every compat mode. */
export function withRouting(schema: Record<string, unknown>): Record<string, unknown> {
  const fields = json(RoutingFields) as { properties: Record<string, unknown> };
  return { ...schema, properties: { ...(schema.properties as Record<string, unknown>), ...fields.properties } };
}

/** The error object in either dialect: which one a server speaks is its `server.compat`. */
const errorResponse = (description: string) => ({
  description,
  headers: { "X-Request-Id": { schema: { type: "string" } } },
  content: { "application/json": { schema: { oneOf: [ref("Error"), ref("OpenAIError")] } } },
});

export const errorResponses = (list: ReadonlyArray<readonly [string, string]>) => Object.fromEntries(list.map(([s, d]) => [s, errorResponse(d)]));

/** A 200 with the rate-limit headers and a JSON body of the named schema. */
export const okJson = (description: string, schema: string) => ({
  description,
  headers: rateLimitHeaders,
  content: { "application/json": { schema: ref(schema) } },
});

/** The strict form, or the `openai` one. */
export const either = (strict: string, openai: string) => ({ oneOf: [ref(strict), ref(openai)] });

/** A route's part of the document. */
export interface OpenApiPart {
  schemas: Record<string, unknown>;
  paths: Record<string, unknown>;
}
