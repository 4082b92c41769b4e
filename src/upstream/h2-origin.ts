/**
 * HTTP/2 to https upstreams (docs/limits.md, "HTTP/2 to providers"): per origin a few TLS
 * connections, each carrying up to `streamsPerConnection` requests at once, so 10,000 open
 * streams hold ~100 sockets rather than 10,000. The streams are counted here, slot by slot as
 * requests are sent, not left to the client library: undici's pool opens a connection per
 * request when a burst arrives while the first connection is still being made. A server that
 * does not offer h2 in ALPN is remembered and reached over HTTP/1.1 (Http1Only).
 * Timeouts and errors carry undici's codes, so failure reasons read the same on both paths.
 */
import { connect as h2connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { isIP } from "node:net";
import { connect as tlsConnect, type SecureContext } from "node:tls";

export interface H2Options {
  streamsPerConnection: number;
  /** Trusted roots (a private CA with Node's own); undefined: Node's defaults. */
  secureContext: SecureContext | undefined;
  connect: number;
  firstByte: number;
  idle: number;
}

export interface H2Response {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: ClientHttp2Stream;
}

/** The origin answered TLS without h2 in ALPN: send this request (and the next ones) over HTTP/1.1. */
export class Http1Only extends Error {}

interface Conn {
  session: ClientHttp2Session | undefined;
  ready: Promise<ClientHttp2Session>;
  /** Streams sent or about to be sent on it. */
  open: number;
  /** streamsPerConnection, or less if the server's SETTINGS say so. */
  cap: number;
  retired: boolean;
}

/** A connection with no stream for this long is closed. */
const IDLE_CONNECTION_MS = 30_000;
/** Headers HTTP/2 forbids (RFC 9113 §8.2.2); `host` becomes :authority. */
const HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "te"]);

const codeError = (code: string, message: string) => Object.assign(new Error(message), { code });

export class H2Origins {
  private readonly conns = new Map<string, Conn[]>();
  readonly h1Only = new Set<string>();
  /** After close(): a connection still being made is dropped once made (it would keep the process alive). */
  private closed = false;

  constructor(private readonly o: H2Options) {}

  async request(url: URL, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<H2Response> {
    const conn = this.pick(url.origin);
    conn.open++;
    let session: ClientHttp2Session;
    try {
      session = conn.session ?? (await conn.ready);
      signal.throwIfAborted();
    } catch (err) {
      this.release(conn);
      throw err;
    }
    return this.send(session, conn, url, method, headers, body, signal);
  }

  close(): void {
    this.closed = true;
    for (const list of this.conns.values()) for (const c of list) c.session?.destroy();
    this.conns.clear();
  }

  private pick(origin: string): Conn {
    let list = this.conns.get(origin);
    if (!list) this.conns.set(origin, (list = []));
    for (const c of list) if (c.open < c.cap) return c;
    const c = this.connect(origin);
    list.push(c);
    return c;
  }

  /** A stream ended. An idle connection stays for the next request until IDLE_CONNECTION_MS. */
  private release(conn: Conn): void {
    conn.open--;
    if (conn.retired && conn.open === 0) conn.session?.close();
  }

  private retire(origin: string, conn: Conn): void {
    if (conn.retired) return;
    conn.retired = true;
    conn.cap = 0; // never picked again; its open streams finish
    const list = this.conns.get(origin);
    const i = list?.indexOf(conn) ?? -1;
    if (i >= 0) list!.splice(i, 1);
  }

  private connect(origin: string): Conn {
    const conn: Conn = { session: undefined, ready: undefined!, open: 0, cap: this.o.streamsPerConnection, retired: false };
    conn.ready = new Promise<ClientHttp2Session>((resolve, reject) => {
      const url = new URL(origin);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      const socket = tlsConnect({
        host,
        port: Number(url.port || 443),
        servername: isIP(host) ? undefined : host,
        ALPNProtocols: ["h2", "http/1.1"],
        secureContext: this.o.secureContext,
      });
      const timer = setTimeout(() => socket.destroy(codeError("UND_ERR_CONNECT_TIMEOUT", "upstream connect timeout")), this.o.connect);
      const fail = (err: Error) => {
        clearTimeout(timer);
        this.retire(origin, conn);
        reject(err);
      };
      socket.on("error", fail);
      socket.once("secureConnect", () => {
        clearTimeout(timer);
        if (this.closed) return void socket.destroy(codeError("UND_ERR_CLOSED", "upstream client closed"));
        if (socket.alpnProtocol !== "h2") {
          this.h1Only.add(origin);
          socket.destroy();
          return fail(new Http1Only(origin));
        }
        resolve((conn.session = this.session(origin, conn, socket)));
      });
    });
    conn.ready.catch(() => undefined); // each request awaiting it sees the error
    return conn;
  }

  private session(origin: string, conn: Conn, socket: ReturnType<typeof tlsConnect>): ClientHttp2Session {
    const session = h2connect(origin, { createConnection: () => socket, settings: { enablePush: false } });
    const retire = () => this.retire(origin, conn);
    session.on("remoteSettings", (s) => {
      if (!conn.retired) conn.cap = Math.min(this.o.streamsPerConnection, s.maxConcurrentStreams ?? Infinity);
    });
    session.on("error", retire); // its streams get the error too
    session.on("goaway", retire);
    session.on("close", retire);
    session.setTimeout(IDLE_CONNECTION_MS, () => {
      if (conn.open === 0) {
        retire();
        session.close();
      }
    });
    return session;
  }

  private send(
    session: ClientHttp2Session,
    conn: Conn,
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
  ) {
    return new Promise<H2Response>((resolve, reject) => {
      let stream: ClientHttp2Stream;
      try {
        stream = session.request(requestHeaders(url, method, headers, body), { endStream: body === undefined });
      } catch (err) {
        this.release(conn);
        return reject(err as Error);
      }
      let answered = false;
      const onAbort = () => {
        stream.close(constants.NGHTTP2_CANCEL);
        stream.destroy(signal.reason as Error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      stream.setTimeout(this.o.firstByte);
      stream.on("timeout", () =>
        stream.destroy(
          answered ? codeError("UND_ERR_BODY_TIMEOUT", "upstream idle timeout") : codeError("UND_ERR_HEADERS_TIMEOUT", "upstream first byte timeout"),
        ),
      );
      // Before the answer the error rejects; after it, the body's reader gets it.
      stream.on("error", (err) => answered || reject(err));
      stream.once("close", () => {
        signal.removeEventListener("abort", onAbort);
        this.release(conn);
        if (!answered) reject(codeError("UND_ERR_SOCKET", "upstream stream closed before its answer"));
      });
      stream.once("response", (h) => {
        answered = true;
        stream.setTimeout(this.o.idle);
        resolve({ statusCode: Number(h[":status"]), headers: h, body: stream });
      });
      if (body !== undefined) stream.end(body);
    });
  }
}

function requestHeaders(url: URL, method: string, headers: Record<string, string>, body: string | undefined): Record<string, string | number> {
  const out: Record<string, string | number> = { ":method": method, ":path": url.pathname + url.search };
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (!HOP.has(lower)) out[lower] = headers[name]!;
  }
  if (body !== undefined && out["content-length"] === undefined) out["content-length"] = Buffer.byteLength(body);
  return out;
}
