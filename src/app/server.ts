/**
 * The HTTP app. The model routes (chat completions, the hot path, embeddings, Responses)
 * run the pipeline on plain node:http (pipeline/serve.ts over http/exchange.ts); h3 serves
 * the small routes (app/small-routes.ts), the dashboard, 404 and 405. Both render errors with http/error-reply.ts, so every response, success or error,
 * carries X-Request-Id and X-RateLimit-* and the same error object. Why the split, with
 * the measured cost of h3 on the hot path: docs/architecture.md.
 */
import { STATUS_CODES, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { fromNodeHandler, H3, H3Error, toNodeHandler, type H3Event } from "h3";
import { CHAT_COMPLETIONS } from "../endpoints/chat/route.js";
import { mountDashboard } from "../dashboard/mount.js";
import { EMBEDDINGS } from "../endpoints/embeddings/route.js";
import { COUNT_TOKENS } from "../endpoints/messages/count-tokens.js";
import { MESSAGES } from "../endpoints/messages/route.js";
import { CREATE_RESPONSE } from "../endpoints/responses/route.js";
import { countTokens } from "../endpoints/gemini/count-tokens.js";
import { GEMINI_EMBED } from "../endpoints/gemini/embed.js";
import { GEMINI_PREFIXES, GEMINI_VERSIONS, geminiPath, isEmbedMethod } from "../endpoints/gemini/path.js";
import { GEMINI } from "../endpoints/gemini/route.js";
import { isMcpUrl, serveMcp } from "../endpoints/mcp/route.js";
import { errorReply } from "../http/error-reply.js";
import { GatewayError, invalidRequest, methodNotAllowed, requestHeadersTooLarge, routeNotFound } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { authenticate } from "../http/authenticate.js";
import { credentialOf } from "../http/credential.js";
import { eventClientIp, socketClientIp } from "../http/client-ip.js";
import { limitByIp } from "../http/rate-limit.js";
import { startRequest, type RequestState } from "../http/request-state.js";
import type { Endpoint, Parsed } from "../pipeline/endpoint.js";
import { serve, serveKeyed } from "../pipeline/serve.js";
import { envelopeFor, SMALL_ROUTES } from "./small-routes.js";

/** The routes that carry model traffic: node:http and the pipeline, each with its Endpoint. */
const MODEL_ROUTES: readonly Endpoint<Parsed, unknown>[] = [CHAT_COMPLETIONS, EMBEDDINGS, CREATE_RESPONSE, MESSAGES];

const CHAT = CHAT_COMPLETIONS.path;

/** The methods each path answers, from both tables; another method is a 405 with `Allow`. */
const ALLOWED = allowedMethods([
  ...MODEL_ROUTES.map((e) => ({ method: "POST", path: e.path })),
  { method: "POST", path: COUNT_TOKENS.path },
  ...GEMINI_PREFIXES.map((prefix) => ({ method: "POST", path: `${prefix}**` })),
  ...SMALL_ROUTES,
]);

/**
 * Other model routes served straight on node:http by their canonical path (a query ignored), as
 * chat is: through h3, a streamed answer cost its adapter a second `end()` and the error object
 * Node builds for it (docs/messages.md, "Performance").
 */
const DIRECT: Record<string, (gw: Gateway, req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
  [MESSAGES.path]: (gw, req, res) => serve(gw, req, res, MESSAGES),
  [COUNT_TOKENS.path]: (gw, req, res) => serveKeyed(gw, req, res, COUNT_TOKENS),
};

/** The node:http listener: the chat route (and DIRECT's) straight to its pipeline, the rest through h3. */
export function createHandler(gw: Gateway): RequestListener {
  const app = toNodeHandler(createApp(gw));
  return (req, res) => {
    if (req.headers.host === undefined && req.httpVersion === "1.1") return void refuseWithoutHost(gw, req, res);
    // The MCP endpoint answers every method itself (405 but for POST), on node:http (docs/mcp.md).
    if (isMcpUrl(req.url)) return void serveMcp(gw, req, res);
    if (req.method !== "POST") return app(req, res);
    if (isChatUrl(req.url)) return void serve(gw, req, res, CHAT_COMPLETIONS);
    const direct = DIRECT[pathOf(req.url)];
    return direct ? void direct(gw, req, res) : app(req, res);
  };
}

function pathOf(url: string | undefined): string {
  const q = url?.indexOf("?") ?? -1;
  return q < 0 ? (url ?? "") : url!.slice(0, q);
}

/**
 * HTTP/1.1 requires Host (RFC 9112 §3.2). Node's own refusal is a bare 400 before any handler,
 * so the server runs with `requireHostHeader: false` (app/serve.ts) and refuses here, in the
 * error shape with the usual headers, counted against the client's IP tier (docs/http.md).
 */
async function refuseWithoutHost(gw: Gateway, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const state = startRequest();
  const missing = invalidRequest("Host: Required (an HTTP/1.1 request must carry a Host header).", "bad_request");
  const error = (await ipLimited(gw, state, req.socket.remoteAddress ?? "unknown"))?.cause ?? missing;
  const reply = errorReply(error, state, false, gw.config.server.compat !== "strict");
  req.resume();
  res.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body), connection: "close" }).end(reply.body);
}

/** The canonical spelling, with or without a query; other spellings h3 resolves (below). */
function isChatUrl(url: string | undefined): boolean {
  return url !== undefined && url.startsWith(CHAT) && (url.length === CHAT.length || url.charCodeAt(CHAT.length) === 63); /* ? */
}

function createApp(gw: Gateway): H3 {
  const clientIp = (event: H3Event) => eventClientIp(event, gw.config.server);
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
      const compat = gw.config.server.compat !== "strict";
      const { status, headers, body } = errorReply(error, stateOf(event), event.req.signal.aborted, compat, envelopeFor(event));
      return new Response(body, { status, headers });
    },
  });

  app.use(async (event, next) => {
    const allowed = allowedAt(event.url.pathname);
    const method = event.req.method;
    if (allowed && !allowed.split(", ").includes(method) && !(allowed.startsWith("GET") && method === "HEAD")) {
      await limitByIp(gw, stateOf(event), clientIp(event));
      throw methodNotAllowed(event.req.method, event.url.pathname, allowed);
    }
    return next();
  });

  // The model routes h3 sees: embeddings, Responses, and spellings of the chat path the fast
  // check in createHandler leaves to h3 (a trailing slash, percent-encoding). They report
  // their own record (the Exchange's): claimed, so h3's watch does not count them twice.
  for (const endpoint of MODEL_ROUTES) {
    app.post(
      endpoint.path,
      fromNodeHandler((req, res) => (gw.obs.claim(res as ServerResponse), serve(gw, req as IncomingMessage, res as ServerResponse, endpoint))),
    );
  }
  // Anthropic's token count: authenticated and rate limited, never billed (endpoints/messages/count-tokens.ts).
  app.post(
    COUNT_TOKENS.path,
    fromNodeHandler((req, res) => (gw.obs.claim(res as ServerResponse), serveKeyed(gw, req as IncomingMessage, res as ServerResponse, COUNT_TOKENS))),
  );
  mountGemini(app, gw, clientIp);
  for (const route of SMALL_ROUTES) {
    app.on(route.method, route.path, async (event) => {
      const state = stateOf(event);
      if (route.access === "ip") {
        const ip = clientIp(event);
        await limitByIp(gw, state, ip);
        return withHeaders(event, await route.handle(gw, event, ip));
      }
      const key = await authenticate(
        gw,
        state,
        credentialOf((name) => event.req.headers.get(name), event.req.url),
        () => clientIp(event),
      );
      return withHeaders(event, await route.handle(gw, key, event));
    });
  }
  // The web dashboard: its pages and /dashboard/api/, in src/dashboard/.
  if (gw.config.dashboard.enabled) mountDashboard(app, gw);
  app.all("/**", async (event) => {
    await limitByIp(gw, stateOf(event), clientIp(event));
    throw routeNotFound(event.url.pathname);
  });
  return app;
}

/**
 * Google's routes carry the model and the method in the path (`{model}:generateContent`,
 * `openai/gpt-5:generateContent` as the AI SDK writes a vendor/model id): the path selects the
 * pipeline's Gemini endpoint, its embeddings endpoint, or countTokens, a keyed route of its own
 * (docs/gemini.md). Any other POST under these prefixes is the unknown route's 404.
 */
function mountGemini(app: H3, gw: Gateway, clientIp: (event: H3Event) => string): void {
  const through = <Req extends Parsed, Answer>(endpoint: Endpoint<Req, Answer>) =>
    fromNodeHandler((req, res) => (gw.obs.claim(res as ServerResponse), serve(gw, req as IncomingMessage, res as ServerResponse, endpoint)));
  const generate = through(GEMINI);
  const embed = through(GEMINI_EMBED);
  for (const version of GEMINI_VERSIONS) {
    app.post(`${version}**`, async (event) => {
      const at = geminiPath(event.url.pathname);
      if (!at) {
        await limitByIp(gw, stateOf(event), clientIp(event));
        throw routeNotFound(event.url.pathname);
      }
      if (at.method !== "countTokens") return (isEmbedMethod(at.method) ? embed : generate)(event);
      const credential = credentialOf((name) => event.req.headers.get(name), event.req.url);
      const key = await authenticate(gw, stateOf(event), credential, () => clientIp(event));
      return withHeaders(event, await countTokens(gw, key, event, at.model, stateOf(event).id));
    });
  }
}

/** `Allow` by exact path, and by prefix for the paths with an id (`:id`, `**`). */
function allowedMethods(routes: { method: string; path: string }[]) {
  const exact: Record<string, string> = {};
  const prefixes: Record<string, string> = {};
  for (const { method, path } of routes) {
    const cut = path.search(/:|\*\*/);
    const table = cut < 0 ? exact : prefixes;
    const at = cut < 0 ? path : path.slice(0, cut);
    table[at] = table[at] ? `${table[at]}, ${method}` : method;
  }
  return { exact, prefixes: Object.entries(prefixes) };
}

function allowedAt(path: string): string | undefined {
  return ALLOWED.exact[path] ?? ALLOWED.prefixes.find(([prefix]) => path.startsWith(prefix))?.[1];
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
    const ip = socketClientIp(socket as Socket, gw.config.server);
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
