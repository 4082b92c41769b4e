/**
 * The small routes, on h3 (docs/architecture.md says why they are not on node:http): one row
 * each, with what admits a request to it: the caller's API key (authenticated, counted
 * against the key's window) or nothing but the client IP's window.
 */
import type { H3Event } from "h3";
import { deleteResponse, getResponse } from "../endpoints/responses/route.js";
import { googleEnvelope } from "../endpoints/gemini/errors.js";
import { geminiModel, geminiModels } from "../endpoints/gemini/models.js";
import { geminiPath } from "../endpoints/gemini/path.js";
import { isGoogleCredential } from "../http/credential.js";
import { keyInfo } from "../endpoints/key/route.js";
import { mcpHealth } from "../endpoints/mcp/health.js";
import { getModel, listModels } from "../endpoints/models/route.js";
import type { Gateway } from "../gateway.js";
import type { KeyRecord } from "../store/index.js";
import { metricsReply } from "./metrics-route.js";
import { openApiDocument } from "./openapi.js";

const MODEL_PREFIX = "/v1/models/";
const RESPONSE_PREFIX = "/v1/responses/";

export type SmallRoute = { method: "GET" | "DELETE"; path: string } & (
  { access: "key"; handle(gw: Gateway, key: KeyRecord, event: H3Event): unknown } | { access: "ip"; handle(gw: Gateway, event: H3Event, ip: string): unknown }
);

/** Built on the first request for it, not at start: ~11 ms of zod-to-JSON-Schema work. */
let openapi: string | undefined;

export const SMALL_ROUTES: readonly SmallRoute[] = [
  { method: "GET", path: `${RESPONSE_PREFIX}:id`, access: "key", handle: (gw, key, event) => getResponse(gw, key, idParam(event)) },
  { method: "DELETE", path: `${RESPONSE_PREFIX}:id`, access: "key", handle: (gw, key, event) => deleteResponse(gw, key, idParam(event)) },
  // What the calling key may still spend; counts against the key's limit like every request.
  { method: "GET", path: "/v1/key", access: "key", handle: (gw, key) => keyInfo(gw, key) },
  // A client that authenticates the Google way (x-goog-api-key, ?key=) gets Google's list: @google/genai
  // calls /v1 by default (docs/gemini.md, "Which shape"); errors there in Google's envelope (app/server.ts).
  {
    method: "GET",
    path: "/v1/models",
    access: "key",
    handle: (gw, key, event) => (fromGoogle(event) ? geminiModels(gw, key, event.url.searchParams) : listModels(gw, key)),
  },
  // A vendor/model id keeps its slash in the path (`/v1/models/openai/gpt-4o-mini`), as OpenRouter serves it.
  {
    method: "GET",
    path: `${MODEL_PREFIX}**`,
    access: "key",
    handle: (gw, key, event) => {
      const id = decodePath(event.url.pathname.slice(MODEL_PREFIX.length));
      return fromGoogle(event) ? geminiModel(gw, key, id) : getModel(gw, key, id);
    },
  },
  // Google's model list for Gemini clients (docs/gemini.md), whatever the key's header.
  { method: "GET", path: "/v1beta/models", access: "key", handle: (gw, key, event) => geminiModels(gw, key, event.url.searchParams) },
  {
    method: "GET",
    path: "/v1beta/models/**",
    access: "key",
    handle: (gw, key, event) => geminiModel(gw, key, decodePath(event.url.pathname.slice("/v1beta/models/".length))),
  },
  { method: "GET", path: "/v1/health/providers", access: "ip", handle: providerHealth },
  // The upstream MCP servers (docs/mcp.md), shaped like the providers' health.
  { method: "GET", path: "/v1/health/mcp", access: "ip", handle: (gw) => mcpHealth(gw) },
  {
    method: "GET",
    path: "/v1/openapi.json",
    access: "ip",
    handle: () => new Response((openapi ??= JSON.stringify(openApiDocument())), { headers: { "content-type": "application/json" } }),
  },
  // Prometheus: loopback or the metrics token, else the unknown route's 404 (docs/observability.md).
  {
    method: "GET",
    path: "/metrics",
    access: "ip",
    handle: (gw, event, ip) => metricsReply(gw, event.req.headers.get("authorization"), ip, event.url.pathname),
  },
];

function providerHealth(gw: Gateway) {
  const snapshot = gw.health.snapshot(
    gw.now(),
    [...gw.instances.values()].filter((i) => i.settings.apiKey !== undefined).map((i) => i.settings.id),
  );
  // Whether rate limits are counted across every process (Redis) or in this one.
  return { ...snapshot, limits: gw.limiter.shared ? "shared" : "per_process" };
}

/** The request's key came the Google way (http/credential.ts). */
const fromGoogle = (event: H3Event) => isGoogleCredential((name) => event.req.headers.get(name), event.req.url);

/**
 * Google's routes answer errors in Google's envelope (endpoints/gemini/errors.ts), h3's own
 * refusals included; so does GET /v1/models for a client that authenticates the Google way.
 */
export function envelopeFor(event: H3Event) {
  const path = event.url.pathname;
  if (path.startsWith("/v1beta/") || geminiPath(path)) return googleEnvelope;
  return (path === "/v1/models" || path.startsWith("/v1/models/")) && fromGoogle(event) ? googleEnvelope : undefined;
}

const idParam = (event: H3Event) => decodePath(event.context.params!.id!);

/** A malformed escape is kept as sent: it then names no model (404), rather than failing the request. */
function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
