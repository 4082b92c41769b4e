/**
 * `gateway serve`: the app (app/server.ts) on node:http. (listhen 1.x wraps its server in http-shutdown
 * 1.2.2, which throws an uncaught TypeError when a response finishes after its socket
 * closed, e.g. a client that hangs up mid-upload: that would crash the gateway.)
 * Graceful shutdown: stop accepting, let in-flight requests finish (up to a grace period),
 * write the last ledger rows, close the store.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import type { LoadedConfig } from "../config/load.js";
import { createGateway, type Gateway } from "../gateway.js";
import type { LogTarget } from "../observability/log.js";
import { settleLeftovers } from "../billing/journal.js";
import { recordConfig } from "../operations/config-audit.js";
import { clientErrorHandler, createHandler } from "./server.js";
import type { Store } from "../store/index.js";
import { lockDatabase, type DatabaseLock } from "../store/sqlite/lock.js";
import { openStore } from "../store/open.js";
import { isPostgresUrl } from "../core/database-url.js";
import { requireFleetSecret } from "../access/byok.js";

export interface RunningServer {
  url: string;
  gateway: Gateway;
  /** Streams a killed earlier run left open, billed at this start. */
  leftovers: number;
  close(): Promise<void>;
}

export interface ServeOptions {
  host?: string;
  port?: number;
  env?: NodeJS.ProcessEnv;
  /** Where the request log goes (observability/log.ts); default none. `gateway serve` logs to stdout. */
  log?: LogTarget;
}

export async function startServer(loaded: LoadedConfig, opts: ServeOptions = {}): Promise<RunningServer> {
  const { config } = loaded;
  requireFleetSecret(config.database, opts.env ?? process.env);
  // One process per SQLite file; PostgreSQL is shared by design (docs/fleet.md).
  const lock: DatabaseLock = isPostgresUrl(config.database) ? { release: () => undefined } : lockDatabase(config.database);
  let store: Store;
  let gateway: Gateway;
  try {
    store = await openStore(config.database, config.fleet);
  } catch (err) {
    lock.release();
    throw err;
  }
  try {
    gateway = await createGateway({ config, store, env: opts.env, baseDir: loaded.file ? dirname(loaded.file) : process.cwd(), log: opts.log });
  } catch (err) {
    await store.close();
    lock.release();
    throw err;
  }
  // Streams a killed process left open are billed for what they had delivered (billing/journal.ts).
  const leftovers = await settleLeftovers(store, Date.now());
  // A start with a changed config is its reload: recorded in the audit log (docs/audit.md "Config").
  await recordConfig(store, config, loaded.file ?? "defaults", Date.now());
  // Said on stderr only: a log record on stdout now would come before `serve --json`'s ready line.
  if (leftovers) process.stderr.write(`[gateway] billed ${leftovers} stream(s) interrupted when the last run stopped, for what they had delivered\n`);
  const host = opts.host ?? config.server.host;
  const drain: Drain = { inflight: 0, waiting: [] };
  let server: Server;
  try {
    // A request without Host is refused in the error shape by app/server.ts, not by Node bare.
    const http = createServer({ keepAliveTimeout: 65_000, requireHostHeader: false }, trackInflight(createHandler(gateway), drain));
    http.on("clientError", clientErrorHandler(gateway));
    server = await listen(http, host, opts.port ?? config.server.port);
  } catch (err) {
    await gateway.close();
    await store.close();
    lock.release();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    gateway,
    leftovers,
    close: () =>
      (closing ??= (async () => {
        await stopAccepting(server, drain, config.server.timeouts.shutdown, () => gateway.stopStreams());
        await gateway.close();
        await store.close();
        lock.release();
      })()),
  };
}

/** After the grace period, how long ended streams get to write their last event. */
const STREAM_END_MS = 2_000;

function listen(server: Server, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    // A burst of connects (10,000 streams opening) is not dropped: the kernel caps it at somaxconn.
    server.listen({ port, host, backlog: 4096 }, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

interface Drain {
  inflight: number;
  waiting: Array<() => void>;
}

/** Counts requests whose response has not closed, so shutdown knows when it may drop sockets. */
function trackInflight(handler: RequestListener, drain: Drain): RequestListener {
  return (req, res) => {
    drain.inflight++;
    res.once("close", () => {
      if (--drain.inflight === 0) for (const done of drain.waiting.splice(0)) done();
    });
    return handler(req, res);
  };
}

/**
 * Stops accepting and waits for in-flight responses up to the grace period. Then streams
 * still open are ended by the gateway (an error event, billed for what they delivered:
 * docs/limits.md) and get a moment to write it; then every socket left is dropped: idle
 * keep-alive ones and ones a client opened without sending a request.
 */
function stopAccepting(server: Server, drain: Drain, graceMs: number, endStreams: () => void): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    const dropAll = () => server.closeAllConnections();
    if (drain.inflight === 0) return dropAll();
    server.closeIdleConnections();
    let force = setTimeout(() => {
      endStreams();
      force = setTimeout(dropAll, STREAM_END_MS);
    }, graceMs);
    drain.waiting.push(() => {
      clearTimeout(force);
      dropAll();
    });
  });
}
