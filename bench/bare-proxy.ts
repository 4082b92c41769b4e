/**
 * The ceiling for a Node gateway: a bare pass-through proxy, run as its own process on the
 * gateway's core:  node dist/bench/bare-proxy.js <upstream port>
 * prints {"port":N}. node:http server, a keep-alive agent with no socket cap, the request and
 * the answer piped through as bytes: no parsing, no auth, no billing. What a gateway does on
 * top of this is what its ratio to this case measures.
 */
import { Agent, createServer, request } from "node:http";
import { isMain } from "./main.js";

export function startBareProxy(upstreamPort: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const up = request({ host: "127.0.0.1", port: upstreamPort, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
    req.pipe(up);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
}

if (isMain(import.meta.url)) {
  const port = await startBareProxy(Number(process.argv[2]));
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}
