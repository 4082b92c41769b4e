/**
 * An HTTP/2-over-TLS fake upstream for the HTTP/2 client (src/upstream/h2-origin.ts): a
 * private CA and a certificate for 127.0.0.1 made with `openssl` at run time in a temp dir,
 * removed by `close`. It records each request's HTTP version and the TLS session that carried
 * it, and answers from a script as helpers/fake-upstream.ts does (JSON, SSE, a stream reset).
 */
import { createSecureServer, constants, type Http2ServerResponse } from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { makeCerts as makeBenchCerts } from "../../bench/tls.js";

export interface Certs {
  caFile: string;
  key: Buffer;
  cert: Buffer;
  remove(): void;
}

/** The bench's certificates (bench/tls.ts), made under the run's own temp root. */
export function makeCerts(): Certs {
  const certs = makeBenchCerts(process.env.GATEWAY_TEST_TMP ?? tmpdir());
  return { caFile: certs.caFile, key: certs.key, cert: certs.cert, remove: certs.cleanup };
}

export interface H2Request {
  httpVersion: string;
  /** Which TLS connection carried it (1, 2, ... in accept order). */
  connection: number;
  path: string;
  body: any;
}

export type H2Reply = { status?: number; json: unknown; delayMs?: number } | { sse: string[]; gapMs?: number } | { reset: true } | { hang: true };

export interface H2Upstream {
  url: string;
  requests: H2Request[];
  /** Most streams open at once on any one connection. */
  peakPerConnection: number;
  connections: number;
  /** Answers whose stream the client closed before their end (a cancelled request). */
  aborted: number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function answer(res: Http2ServerResponse, reply: H2Reply): Promise<void> {
  if ("hang" in reply) return;
  if ("reset" in reply) return void res.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  if ("json" in reply) {
    if (reply.delayMs) await sleep(reply.delayMs);
    res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
    return void res.end(JSON.stringify(reply.json));
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const e of reply.sse) {
    if (res.stream.destroyed) return;
    res.write(`data: ${e}\n\n`);
    if (reply.gapMs) await sleep(reply.gapMs);
  }
  res.end("data: [DONE]\n\n");
}

/** `allowHTTP1`: also speaks HTTP/1.1 to a client that offers it (ALPN). */
export async function startH2Upstream(certs: Certs, reply: (req: H2Request) => H2Reply, allowHTTP1 = false): Promise<H2Upstream> {
  const open = new Map<object, number>();
  const ids = new WeakMap<object, number>();
  const fake: H2Upstream = { url: "", requests: [], peakPerConnection: 0, connections: 0, aborted: 0, close: async () => undefined };
  const server = createSecureServer({ key: certs.key, cert: certs.cert, allowHTTP1 }, async (req, res) => {
    // One HTTP/2 session per TLS connection (an HTTP/1.1 request has no stream: its socket).
    const socket = ((req.stream as { session?: object } | undefined)?.session ?? req.socket) as object;
    const now = (open.get(socket) ?? 0) + 1;
    open.set(socket, now);
    fake.peakPerConnection = Math.max(fake.peakPerConnection, now);
    res.on("close", () => {
      open.set(socket, (open.get(socket) ?? 1) - 1);
      if (!res.writableEnded) fake.aborted++;
    });
    let raw = "";
    for await (const c of req) raw += (c as Buffer).toString();
    const recorded: H2Request = { httpVersion: req.httpVersion, connection: ids.get(socket) ?? 0, path: req.url, body: raw ? JSON.parse(raw) : undefined };
    fake.requests.push(recorded);
    await answer(res, reply(recorded));
  });
  server.on("secureConnection", () => fake.connections++);
  server.on("session", (session: object) => ids.set(session, fake.connections));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      for (const s of open.keys()) (s as { destroy(): void }).destroy(); // sessions (or sockets) still open
    });
  return fake;
}
