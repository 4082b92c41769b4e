/**
 * What both Endpoints of Google's routes share (route.ts: generateContent; embed.ts: the embed
 * methods): the ledger's endpoint `gemini`, `google/` for a bare id, the 404 that says how to send
 * a Gemini name to another model, Google's error envelope and the request's own field names.
 */
import { modelMissing, withAliasHint } from "../../catalog/model-hint.js";
import type { Endpoint } from "../../pipeline/endpoint.js";
import { googleEnvelope } from "./errors.js";
import { inGeminiTerms } from "./terms.js";

export const GEMINI_ROUTES = {
  name: "gemini",
  vendor: "google",
  missing: (gw, requested, byokKey, vendor) => withAliasHint(modelMissing(gw.catalog, requested, byokKey, vendor), requested),
  errorEnvelope: googleEnvelope,
  inOwnTerms: inGeminiTerms,
} satisfies Partial<Endpoint<never, never>>;
