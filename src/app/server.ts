/**
 * The HTTP app. POST /v1/chat/completions, the hot path, runs on plain node:http
 * (pipeline/run.ts over http/exchange.ts); h3 serves everything else (models, health, openapi, 404,
 * 405). Both render errors with http/error-reply.ts, so every response, success or error,
 * carries X-Request-Id and X-RateLimit-* and the same error object. Why the split, with
 * the measured cost of h3 on the hot path: docs/architecture.md.
 */
import { STATUS_CODES, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { fromNodeHandler, H3, H3Error, toNodeHandler, type H3Event } from "h3";
import { chatCompletions } from "../endpoints/chat/route.js";
import { mountDashboard } from "../dashboard/mount.js";
import { serveEmbeddings } from "../endpoints/embeddings/route.js";
import { createResponse, deleteResponse, getResponse } from "../endpoints/responses/route.js";
import { errorReply } from "../http/error-reply.js";
import { GatewayError, invalidRequest, methodNotAllowed, requestHeadersTooLarge, routeNotFound } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { Exchange } from "../http/exchange.js";
import { keyInfo } from "../endpoints/key/route.js";
import { metricsReply } from "./metrics-route.js";
import { getModel, listModels } from "../endpoints/models/route.js";
import { openApiDocument } from "./openapi.js";
import { authenticate, limitByIp, startRequest, type RequestState } from "../http/request.js";

const CHAT = "/v1/chat/completions";
const MODEL_PREFIX = "/v1/models/";
const EMBEDDINGS = "/v1/embeddings";
const RESPONSES = "/v1/responses";
const RESPONSE_PREFIX = "/v1/responses/";

const ROUTES: Record<string, string> = {
  [CHAT]: "POST",
  [EMBEDDINGS]: "POST",
  [RESPONSES]: "POST",
  "/v1/models": "GET",
  "/v1/key": "GET",
  "/v1/health/providers": "GET",
  "/v1/openapi.json": "GET",
  "/metrics": "GET",
};

/** The node:http listener: the chat route straight to its pipeline, the rest through h3. */
export function createHandler(gw: Gateway): RequestListener {
  const app = toNodeHandler(createApp(gw));
  return (req, res) => (req.method === "POST" && isChatUrl(req.url) ? void serveChat(gw, req, res) : app(req, res));
}

/** The canonical spelling, with or without a query; other spellings h3 resolves (below). */
function isChatUrl(url: string | undefined): boolean {
  return url !== undefined && url.startsWith(CHAT) && (url.length === CHAT.length || url.charCodeAt(CHAT.length) === 63); /* ? */
}

function serveChat(gw: Gateway, req: IncomingMessage, res: ServerResponse, handler = chatCompletions, route = CHAT): Promise<void> {
  const ex = new Exchange(req, res, gw.config.server.compat !== "strict");
  gw.obs.begin(ex.state.rec, route, req);
  const done = handler(gw, ex).catch((err: unknown) => ex.fail(err));
  // Shutdown waits for every request's own settlement, not only for its socket to close.
  gw.pending.add(done);
  return done.finally(() => {
    gw.pending.delete(done);
    gw.obs.respond(ex.state.rec); // its metrics and log line (observability/observer.ts)
  });
}

function createApp(gw: Gateway): H3 {
  // Built on the first request for it, not at start: ~11 ms of zod-to-JSON-Schema work.
  let openapi: string | undefined;
  const app = new H3({
    silent: true,
    onRequest: (event) => {
      const state = (event.context.gateway = startRequest());
      const res = nodeOf(event)?.res;
      if (res) gw.obs.watch(res, state.rec, event.url.pathname);
    },
    onError: async (error, event) => {
      // h3's own refusals (a path it cannot decode) are limited per IP like every request without a key.
      if (!(error.cause instanceof GatewayError) && error.status === 400) error = (await ipLimited(gw, stateOf(event), clientIp(event))) ?? error;
      const { status, headers, body } = errorReply(error, stateOf(event), event.req.signal.aborted, gw.config.server.compat !== "strict");
      return new Response(body, { status, headers });
    },
  });

  app.use(async (event, next) => {
    const path = event.url.pathname;
    const allowed = ROUTES[path] ?? (path.startsWith(MODEL_PREFIX) ? "GET" : path.startsWith(RESPONSE_PREFIX) ? "GET, DELETE" : undefined);
    const method = event.req.method;
    if (allowed && !allowed.split(", ").includes(method) && !(allowed.startsWith("GET") && method === "HEAD")) {
      await limitByIp(gw, stateOf(event), clientIp(event));
      throw methodNotAllowed(event.req.method, event.url.pathname, allowed);
    }
    return next();
  });

  // Spellings of the chat path the fast check in createHandler leaves to h3 (a trailing
  // slash, percent-encoding): the same node:http pipeline.
  // These report their own record (the Exchange's): claimed, so h3's watch does not count them twice.
  app.post(
    CHAT,
    fromNodeHandler((req, res) => (gw.obs.claim(res as ServerResponse), serveChat(gw, req as IncomingMessage, res as ServerResponse))),
  );
  // Embeddings: routed by h3 (not the hot path), served on node:http like chat (endpoints/embeddings/route.ts).
  app.post(
    EMBEDDINGS,
    fromNodeHandler((req, res) => (gw.obs.claim(res as ServerResponse), serveEmbeddings(gw, req as IncomingMessage, res as ServerResponse))),
  );
  // POST /v1/responses runs the chat pipeline (pipeline/run.ts) on node:http like the chat route.
  app.post(
    RESPONSES,
    fromNodeHandler(
      (req, res) => (gw.obs.claim(res as ServerResponse), serveChat(gw, req as IncomingMessage, res as ServerResponse, createResponse, RESPONSES)),
    ),
  );
  app.get(`${RESPONSE_PREFIX}:id`, async (event) => {
    const key = await authenticate(gw, stateOf(event), event.req.headers.get("authorization"), clientIp(event));
    return withHeaders(event, await getResponse(gw, key, decodePath(event.context.params!.id!)));
  });
  app.delete(`${RESPONSE_PREFIX}:id`, async (event) => {
    const key = await authenticate(gw, stateOf(event), event.req.headers.get("authorization"), clientIp(event));
    return withHeaders(event, await deleteResponse(gw, key, decodePath(event.context.params!.id!)));
  });
  // What the calling key may still spend (contract.md §10); counts against the key's limit like every request.
  app.get("/v1/key", async (event) => {
    const key = await authenticate(gw, stateOf(event), event.req.headers.get("authorization"), clientIp(event));
    return withHeaders(event, await keyInfo(gw, key));
  });
  app.get("/v1/models", async (event) => {
    const key = await authenticate(gw, stateOf(event), event.req.headers.get("authorization"), clientIp(event));
    return withHeaders(event, await listModels(gw, key));
  });
  // A vendor/model id keeps its slash in the path (`/v1/models/openai/gpt-4o-mini`), as OpenRouter serves it.
  app.get(`${MODEL_PREFIX}**`, async (event) => {
    const key = await authenticate(gw, stateOf(event), event.req.headers.get("authorization"), clientIp(event));
    return withHeaders(event, await getModel(gw, key, decodePath(event.url.pathname.slice(MODEL_PREFIX.length))));
  });
  app.get("/v1/health/providers", async (event) => {
    await limitByIp(gw, stateOf(event), clientIp(event));
    const snapshot = gw.health.snapshot(
      gw.now(),
      [...gw.instances.values()].filter((i) => i.settings.apiKey !== undefined).map((i) => i.settings.id),
    );
    // Whether rate limits are counted across every process (Redis) or in this one (contract.md §7).
    return withHeaders(event, { ...snapshot, limits: gw.limiter.shared ? "shared" : "per_process" });
  });
  app.get("/v1/openapi.json", async (event) => {
    await limitByIp(gw, stateOf(event), clientIp(event));
    openapi ??= JSON.stringify(openApiDocument());
    return withHeaders(event, new Response(openapi, { headers: { "content-type": "application/json" } }));
  });
  // The web dashboard (contract.md §8): its pages and /dashboard/api/, in src/dashboard/.
  if (gw.config.dashboard.enabled) mountDashboard(app, gw);
  // Prometheus (contract.md §9): loopback or the metrics token, else the unknown route's 404.
  app.get("/metrics", async (event) => {
    await limitByIp(gw, stateOf(event), clientIp(event));
    return withHeaders(event, await metricsReply(gw, event.req.headers.get("authorization"), clientIp(event), event.url.pathname));
  });
  app.all("/**", async (event) => {
    await limitByIp(gw, stateOf(event), clientIp(event));
    throw routeNotFound(event.url.pathname);
  });
  return app;
}

/** A malformed escape is kept as sent: it then names no model (404), rather than failing the request. */
function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The IP tier's verdict without throwing: a 429 to answer with, or undefined (and its headers staged). */
async function ipLimited(gw: Gateway, state: RequestState, ip: string): Promise<H3Error | undefined> {
  try {
    await limitByIp(gw, state, ip);
    return undefined;
  } catch (err) {
    return new H3Error(err as Error);
  }
}

/**
 * Node's HTTP parser refuses some requests before any handler runs (an oversized header
 * block: 431; a garbage request line: 400) and would answer in plain text. They get the
 * error shape and the usual headers, and count against the client's IP tier.
 */
export function clientErrorHandler(gw: Gateway): (err: NodeJS.ErrnoException, socket: Duplex) => Promise<void> {
  return async (err, socket) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) return void socket.destroy();
    const state = startRequest();
    const ip = (socket as { remoteAddress?: string }).remoteAddress ?? "unknown";
    const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
    let error: unknown = tooLarge ? requestHeadersTooLarge() : invalidRequest("Malformed HTTP request.", "bad_request");
    error = (await ipLimited(gw, state, ip))?.cause ?? error;
    if (!socket.writable) return void socket.destroy();
    const reply = errorReply(error, state, false, gw.config.server.compat !== "strict");
    const head = Object.entries({ ...reply.headers, "content-length": String(Buffer.byteLength(reply.body)), connection: "close" })
      .map(([k, v]) => `${k}: ${v}`)
      .join("\r\n");
    socket.end(`HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ""}\r\n${head}\r\n\r\n${reply.body}`);
  };
}

function stateOf(event: H3Event): RequestState {
  return (event.context.gateway as RequestState | undefined) ?? (event.context.gateway = startRequest());
}

function nodeOf(event: H3Event): { req?: IncomingMessage; res?: ServerResponse } | undefined {
  return (event.runtime as { node?: { req?: IncomingMessage; res?: ServerResponse } } | undefined)?.node;
}

function clientIp(event: H3Event): string {
  return nodeOf(event)?.req?.socket?.remoteAddress ?? "unknown";
}

/** Stages the request's headers on a successful answer (errors get them in errorReply). */
function withHeaders<T>(event: H3Event, result: T): T {
  const { headers } = stateOf(event);
  if (result instanceof Response) {
    for (const [k, v] of Object.entries(headers)) if (!result.headers.has(k)) result.headers.set(k, v);
  } else {
    for (const [k, v] of Object.entries(headers)) event.res.headers.set(k, v);
  }
  return result;
}
