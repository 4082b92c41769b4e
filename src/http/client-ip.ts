/**
 * The client's address, the one every per-IP decision uses: the IP rate-limit tier, the
 * dashboard's sign-in throttle, /metrics' loopback check, Node's clientError answers. Behind a
 * trusted reverse proxy it comes from X-Forwarded-For, read by proxy-addr as Express and
 * Fastify read it; otherwise it is the socket's peer. What `server.trustProxy` trusts, and why
 * `true` means loopback proxies only: docs/http.md "Behind a reverse proxy".
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { H3Event } from "h3";
import proxyAddr from "proxy-addr";
import type { Config } from "../config/config.js";

type Server = Pick<Config["server"], "trustProxy">;
/** proxy-addr's question: is `addr`, `hop` steps from us (0: the socket's peer), a proxy we trust? */
type Trust = (addr: string, hop: number) => boolean;

const trustNone: Trust = () => false;
/** Compiled once per config: a gateway's settings do not change while it runs. */
const compiled = new WeakMap<Server, Trust>();

function trustOf(server: Server): Trust {
  let trust = compiled.get(server);
  if (!trust) compiled.set(server, (trust = compile(server.trustProxy)));
  return trust;
}

function compile(setting: Server["trustProxy"]): Trust {
  if (setting === false || setting === 0) return trustNone;
  if (setting === true) return proxyAddr.compile("loopback");
  if (typeof setting === "number") return (_addr, hop) => hop < setting;
  return proxyAddr.compile(setting);
}

/** The client's address: the first untrusted one walking back from the socket through X-Forwarded-For. */
export function clientIp(req: Pick<IncomingMessage, "headers" | "socket">, server: Server): string {
  const trust = trustOf(server);
  if (trust === trustNone) return req.socket.remoteAddress ?? "unknown";
  return proxyAddr(req as IncomingMessage, trust) ?? "unknown";
}

/** For Node's clientError, which has a socket but no parsed request: the peer is all there is. */
export function socketClientIp(socket: Socket, server: Server): string {
  return clientIp({ headers: {}, socket }, server);
}

/** Whether the socket's peer is a proxy we trust: then its X-Forwarded-Proto is believed too. */
export function fromTrustedProxy(req: Pick<IncomingMessage, "socket">, server: Server): boolean {
  const peer = req.socket.remoteAddress;
  return peer !== undefined && trustOf(server)(peer, 0);
}

export function nodeRequest(event: H3Event): IncomingMessage | undefined {
  return (event.runtime as { node?: { req?: IncomingMessage } } | undefined)?.node?.req;
}

/** The client address of a request h3 serves (small routes, the dashboard). */
export function eventClientIp(event: H3Event, server: Server): string {
  const req = nodeRequest(event);
  return req ? clientIp(req, server) : "unknown";
}
