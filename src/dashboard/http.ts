/**
 * What dashboard routes read from a request and how they answer: the client address, whether
 * the request came over HTTPS, the Origin check for state-changing requests, JSON bodies
 * validated by zod, and JSON answers carrying the request's X-Request-Id.
 */
import type { IncomingMessage } from "node:http";
import type { H3Event } from "h3";
import type { z } from "zod";
import { forbidden, invalidRequest } from "../core/errors.js";
import type { RequestState } from "../http/request-state.js";
import { validate } from "../core/validate.js";

const MAX_BODY = 64 * 1024;

export function clientIp(event: H3Event): string {
  const node = (event.runtime as { node?: { req?: IncomingMessage } } | undefined)?.node;
  return node?.req?.socket?.remoteAddress ?? "unknown";
}

/** HTTPS to us, or to a proxy we were told to trust (`server.trustProxy`) that says so. */
export function isSecure(event: H3Event, trustProxy: boolean): boolean {
  if (event.url.protocol === "https:") return true;
  const node = (event.runtime as { node?: { req?: IncomingMessage } } | undefined)?.node;
  if ((node?.req?.socket as { encrypted?: boolean } | undefined)?.encrypted) return true;
  return trustProxy && event.req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}

/**
 * State-changing requests must come from a page of this dashboard: browsers send Origin on
 * every POST, PUT and DELETE, and a cross-site form or fetch cannot forge it. With SameSite=Strict
 * cookies this is the second of two locks against cross-site request forgery.
 */
export function checkOrigin(event: H3Event, trustProxy: boolean): void {
  const origin = event.req.headers.get("origin");
  const host = event.req.headers.get("host");
  const scheme = isSecure(event, trustProxy) ? "https" : "http";
  if (!origin || !host || origin !== `${scheme}://${host}`) {
    throw forbidden("This request must come from the dashboard's own page (the Origin header is missing or names another site).", "origin_mismatch");
  }
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
