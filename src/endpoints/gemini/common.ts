/**
 * What both Endpoints of Google's routes share (route.ts: generateContent; embed.ts: the embed
 * methods): the ledger's endpoint `gemini`, `google/` for a bare id, the 404 that says how to send
 * a Gemini name to another model, Google's error envelope and the request's own field names.
 */
import { modelMissing } from "../../catalog/model-hint.js";
import { GatewayError } from "../../core/errors.js";
import type { Endpoint } from "../../pipeline/endpoint.js";
import { googleEnvelope } from "./errors.js";
import { inGeminiTerms } from "./terms.js";

export const GEMINI_ROUTES = {
  name: "gemini",
  vendor: "google",
  missing: (gw, requested, byokKey) => withAliasHint(modelMissing(gw.catalog, requested, byokKey), requested),
  errorEnvelope: googleEnvelope,
  inOwnTerms: inGeminiTerms,
} satisfies Partial<Endpoint<never, never>>;

/** A bare name no catalog model has (what Gemini clients send): the 404 says how to send it to another model. */
function withAliasHint(err: GatewayError, requested: string): GatewayError {
  if (requested.includes("/") || err.code !== "model_not_found") return err;
  const hint = ` To serve it with another model, add a config alias (aliases: {"${requested}": vendor/model}, or a glob such as "gemini-*").`;
  return new GatewayError(err.status, err.type, err.code, err.message + hint, { param: err.param, headers: err.headers });
}
