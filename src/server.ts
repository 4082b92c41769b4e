/**
 * The HTTP app (h3): routes, and the one place errors become api.md's error object.
 * Every response, success or error, carries X-Request-Id and X-RateLimit-*.
 */
import { H3, type H3Event } from "h3";
import { chatCompletions } from "./chat.js";
import { GatewayError, internalError, methodNotAllowed, routeNotFound } from "./errors.js";
import type { Gateway } from "./gateway.js";
import { listModels } from "./models.js";
import { openApiDocument } from "./openapi.js";
import { authenticate, limitByIp, startRequest, stateOf } from "./request.js";

const ROUTES: Record<string, string> = {
  "/v1/chat/completions": "POST",
  "/v1/models": "GET",
  "/v1/health/providers": "GET",
  "/v1/openapi.json": "GET",
};

export function createApp(gw: Gateway): H3 {
  const openapi = JSON.stringify(openApiDocument());
  const app = new H3({
    silent: true,
    onRequest: (event) => void startRequest(event),
    onError: (error, event) => renderError(error, event),
  });

  app.use((event, next) => {
    const allowed = ROUTES[event.url.pathname];
    if (allowed && event.req.method !== allowed && !(allowed === "GET" && event.req.method === "HEAD")) {
      limitByIp(gw, event);
      throw methodNotAllowed(event.req.method, event.url.pathname, allowed);
    }
    return next();
  });

  app.post("/v1/chat/completions", (event) => withHeaders(event, chatCompletions(event, gw)));
  app.get("/v1/models", (event) => {
    const key = authenticate(gw, event);
    return withHeaders(event, listModels(gw, key));
  });
  app.get("/v1/health/providers", (event) => {
    limitByIp(gw, event);
    return withHeaders(event, gw.health.snapshot(gw.now(), [...gw.instances.values()].filter((i) => i.settings.apiKey !== undefined).map((i) => i.settings.id)));
  });
  app.get("/v1/openapi.json", (event) => {
    limitByIp(gw, event);
    return withHeaders(event, new Response(openapi, { headers: { "content-type": "application/json" } }));
  });
  app.all("/**", (event) => {
    limitByIp(gw, event);
    throw routeNotFound(event.url.pathname);
  });
  return app;
}

/** Stages the request's headers on a successful answer (errors get them in renderError). */
async function withHeaders<T>(event: H3Event, value: T | Promise<T>): Promise<T> {
  const result = await value;
  const { headers } = stateOf(event);
  if (result instanceof Response) {
    for (const [k, v] of Object.entries(headers)) if (!result.headers.has(k)) result.headers.set(k, v);
  } else {
    for (const [k, v] of Object.entries(headers)) event.res.headers.set(k, v);
  }
  return result;
}

function renderError(error: unknown, event: H3Event): Response {
  const state = stateOf(event);
  const cause = (error as { cause?: unknown }).cause;
  const err = error instanceof GatewayError ? error : cause instanceof GatewayError ? cause : fromH3(error);
  if (err.status >= 500 && err.code === "internal_error" && !event.req.signal.aborted) {
    // A gateway bug: logged with the request id, never shown to the client.
    console.error(`[gateway] ${state.id} internal error:`, err.cause ?? error);
  }
  const body = JSON.stringify({ error: { message: err.message, type: err.type, code: err.code, request_id: state.id } });
  const headers: Record<string, string> = { ...state.headers, ...err.headers, "content-type": "application/json" };
  if (err.status === 429) headers["x-ratelimit-reset"] = headers["retry-after"] ?? headers["x-ratelimit-reset"] ?? "0";
  return new Response(body, { status: err.status, headers });
}

/** Errors h3 raises itself (a route it could not match, a malformed URL) or a bug. */
function fromH3(error: unknown): GatewayError {
  const status = (error as { status?: number }).status;
  if (status === 404) return routeNotFound("this path");
  if (status === 405) return methodNotAllowed("this method", "this path", "");
  return internalError((error as { cause?: unknown }).cause ?? error);
}
