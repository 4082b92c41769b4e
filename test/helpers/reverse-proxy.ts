/**
 * A reverse proxy on loopback that forwards as nginx's usual `proxy_pass` block does: it
 * appends the client's address to X-Forwarded-For (`$proxy_add_x_forwarded_for`), sets
 * X-Forwarded-Proto, and (unless told to keep it) rewrites Host to the upstream's, nginx's
 * default. `from` makes a client that connects from one loopback address (127.0.0.2, …), so
 * a test has several clients on one machine.
 */
import { request as httpRequest, createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReverseProxy {
  url: string;
  /** Where requests go: set once the gateway behind it has started. */
  target: string;
  close(): Promise<void>;
}

export async function startReverseProxy(o: { keepHost?: boolean } = {}): Promise<ReverseProxy> {
  const proxy: ReverseProxy = { url: "", target: "", close: () => new Promise((done) => (server.close(() => done()), server.closeAllConnections())) };
  const server = createServer((req, res) => {
    const target = new URL(proxy.target);
    const headers: IncomingHttpHeaders = { ...req.headers, "x-forwarded-proto": "http" };
    const prior = req.headers["x-forwarded-for"];
    headers["x-forwarded-for"] = prior ? `${String(prior)}, ${req.socket.remoteAddress}` : req.socket.remoteAddress;
    if (!o.keepHost) headers.host = target.host;
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  json: any;
}

/** One HTTP request from a given loopback address (no connection reuse: each is a new socket). */
export function send(from: string, url: string, o: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  const headers = { ...o.headers, ...(body === undefined ? {} : { "content-type": "application/json" }), connection: "close" };
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: o.method ?? "GET", headers, localAddress: from }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
