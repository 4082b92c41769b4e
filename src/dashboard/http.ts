/**
 * What dashboard routes read from a request and how they answer: whether the request came
 * over HTTPS, the Origin check for state-changing requests, JSON bodies
 * validated by zod, and JSON answers carrying the request's X-Request-Id.
 */
import type { H3Event } from "h3";
import type { z } from "zod";
import type { Config } from "../config/config.js";
import { forbidden, invalidRequest } from "../core/errors.js";
import { fromTrustedProxy, nodeRequest } from "../http/client-ip.js";
import type { RequestState } from "../http/request-state.js";
import { validate } from "../core/validate.js";

const MAX_BODY = 64 * 1024;

/** HTTPS to us, or to a proxy we trust (`server.trustProxy`) that says so in X-Forwarded-Proto. */
export function isSecure(event: H3Event, server: Config["server"]): boolean {
  if (event.url.protocol === "https:") return true;
  const req = nodeRequest(event);
  if (!req) return false;
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  return fromTrustedProxy(req, server) && event.req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}

/**
 * State-changing requests must come from a page of this dashboard: browsers send Origin on
 * every POST, PUT and DELETE, and a cross-site form or fetch cannot forge it. With SameSite=Strict
 * cookies this is the second of two locks against cross-site request forgery. The expected
 * origin is `dashboard.url`'s when set, because a proxy may rewrite Host (nginx does by
 * default); else the Host header's (docs/dashboard.md).
 */
export function checkOrigin(event: H3Event, config: Pick<Config, "server" | "dashboard">): void {
  const origin = event.req.headers.get("origin");
  if (!origin || origin !== expectedOrigin(event, config)) {
    throw forbidden("This request must come from the dashboard's own page (the Origin header is missing or names another site).", "origin_mismatch");
  }
}

/**
 * Where this dashboard is reached, without a trailing slash: `dashboard.url` when set, else the
 * request's scheme and Host (as the Origin check). The SSO redirect URI is built on it.
 */
export function dashboardBase(event: H3Event, config: Pick<Config, "server" | "dashboard">): string {
  return config.dashboard.url ? config.dashboard.url.replace(/\/+$/, "") : (expectedOrigin(event, config) ?? "");
}

/** Where this dashboard is served, as browsers name it: also the base of sign-in links it issues. */
export function expectedOrigin(event: H3Event, config: Pick<Config, "server" | "dashboard">): string | undefined {
  if (config.dashboard.url) return new URL(config.dashboard.url).origin;
  const host = event.req.headers.get("host");
  return host ? `${isSecure(event, config.server) ? "https" : "http"}://${host}` : undefined;
}

export async function readBody<T extends z.ZodType>(event: H3Event, schema: T): Promise<z.infer<T>> {
  const text = await event.req.text();
  if (Buffer.byteLength(text) > MAX_BODY) throw invalidRequest(`Request body exceeds the limit of ${MAX_BODY} bytes.`, "request_too_large");
  let body: unknown;
  try {
    body = text === "" ? {} : JSON.parse(text);
  } catch {
    throw invalidRequest("The request body is not valid JSON.");
  }
  return validate(schema, body);
}

const stateOf = (event: H3Event) => event.context.gateway as RequestState;

/** A JSON answer with the request's headers; never cached (it is one user's data). */
export function reply(event: H3Event, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const h = new Headers({ ...stateOf(event).headers, "content-type": "application/json", "cache-control": "no-store", ...headers });
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers: h });
}

/** A file to download (`Export CSV`), with the request's headers; never cached either. */
export function replyFile(event: H3Event, body: string, type: string, filename: string): Response {
  const h = new Headers({
    ...stateOf(event).headers,
    "content-type": type,
    "content-disposition": `attachment; filename="${filename}"`,
    "cache-control": "no-store",
  });
  return new Response(body, { status: 200, headers: h });
}
