/**
 * One address in front of several gateway processes, as a load balancer without stickiness:
 * each HTTP request goes to the next backend in turn, streamed both ways. Counts what each
 * backend served, so a test can tell that a session really crossed processes.
 */
import { createServer, request, type Server } from "node:http";

export interface RoundRobin {
  url: string;
  served: number[];
  close(): Promise<void>;
}

export async function startRoundRobin(backends: string[]): Promise<RoundRobin> {
  const served = backends.map(() => 0);
  let next = 0;
  const server: Server = createServer((req, res) => {
    const i = next++ % backends.length;
    served[i]!++;
    const to = new URL(req.url ?? "/", backends[i]);
    const headers = { ...req.headers, host: to.host };
    const up = request(to, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
