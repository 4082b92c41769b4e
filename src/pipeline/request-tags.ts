/**
 * The request's tags for its ledger row (docs/usage.md, "Tags"): the `X-Gateway-Tags` header on
 * every endpoint, plus `metadata` on chat completions and Responses. Only read here: the body,
 * `metadata` included, goes to the provider exactly as the endpoint's adapter makes it.
 */
import { requestTags, type Tags } from "../core/request-tags.js";
import type { Exchange } from "../http/exchange.js";
import type { Endpoint, Parsed } from "./endpoint.js";

/** Endpoints whose request `metadata` is OpenAI's string map (the Messages API's is not: `{user_id}`). */
const METADATA_ENDPOINTS = new Set(["chat", "responses"]);

export function tagsOf<Req extends Parsed, Answer>(ex: Exchange, ep: Endpoint<Req, Answer>, body: Req): Tags | null {
  const metadata = METADATA_ENDPOINTS.has(ep.name) ? (body as { metadata?: Record<string, string> | null }).metadata : undefined;
  return requestTags(ex.header("x-gateway-tags"), metadata ?? undefined);
}
