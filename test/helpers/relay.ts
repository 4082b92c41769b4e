/**
 * A TCP relay in front of PostgreSQL or Redis that the test controls, so the shared servers are
 * never stopped: `freeze` stops forwarding bytes in both directions without closing anything (a
 * network black hole; what is dropped is gone), `reset` destroys every connection, `cut` also
 * refuses new ones until `restore`, and `silence(match)` black-holes only the open connections
 * whose client has sent bytes containing `match` (e.g. PostgreSQL's `LISTEN gateway_changes`).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

interface Link {
  client: Socket;
  upstream: Socket;
  sent: string;
  silent: boolean;
}

export interface Relay {
  port: number;
  /** `target` with its host and port replaced by the relay's. */
  url: string;
  freeze(): void;
  thaw(): void;
  reset(): void;
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** Black-holes the open connections whose client sent `match` (new ones are left alone); returns how many. */
  silence(match: string): number;
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<Relay> {
  const to = new URL(target);
  const links = new Set<Link>();
  let frozen = false;
  let server: Server;
  const quiet = (l: Link) => frozen || l.silent;
  const accept = (client: Socket) => {
    const upstream = connect(Number(to.port), to.hostname);
    const link: Link = { client, upstream, sent: "", silent: false };
    links.add(link);
    for (const s of [client, upstream]) {
      s.on("error", () => undefined);
      s.on("close", () => (links.delete(link), client.destroy(), upstream.destroy()));
    }
    client.on("data", (d: Buffer) => {
      // Only the first bytes matter for matching (a startup packet, a LISTEN): keep a bounded tail.
      link.sent = (link.sent + d.toString("latin1")).slice(-4096);
      if (!quiet(link)) upstream.write(d);
    });
    upstream.on("data", (d: Buffer) => void (quiet(link) || client.write(d)));
  };
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = createServer(accept);
      server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
    });
  const port = await listen(0);
  const via = new URL(target);
  via.host = `127.0.0.1:${port}`;
  const reset = () => {
    for (const l of links) (l.client.destroy(), l.upstream.destroy());
    links.clear();
  };
  return {
    port,
    url: via.toString(),
    freeze: () => void (frozen = true),
    thaw: () => void (frozen = false),
    reset,
    cut: () =>
      new Promise<void>((resolve) => {
        reset();
        server.close(() => resolve());
      }),
    restore: () => listen(port).then(() => undefined),
    silence(match) {
      let n = 0;
      for (const l of links) if (l.sent.includes(match)) ((l.silent = true), n++);
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        reset();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}
