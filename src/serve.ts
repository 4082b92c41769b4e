/**
 * `gateway serve`: the h3 app served by listhen. Graceful shutdown on SIGINT/SIGTERM:
 * stop accepting, let in-flight requests finish, write the last ledger rows, close.
 */
import { dirname } from "node:path";
import { toNodeHandler } from "h3";
import { listen, type Listener } from "listhen";
import type { LoadedConfig } from "./config.js";
import { createGateway, type Gateway } from "./gateway.js";
import { createApp } from "./server.js";
import { openSqliteStore } from "./store/sqlite.js";

export interface RunningServer {
  url: string;
  gateway: Gateway;
  close(): Promise<void>;
}

export async function startServer(loaded: LoadedConfig, opts: { host?: string; port?: number; env?: NodeJS.ProcessEnv } = {}): Promise<RunningServer> {
  const { config } = loaded;
  const store = openSqliteStore(config.database);
  let gateway: Gateway;
  try {
    gateway = await createGateway({ config, store, env: opts.env, baseDir: loaded.file ? dirname(loaded.file) : process.cwd() });
  } catch (err) {
    store.close();
    throw err;
  }
  const host = opts.host ?? config.server.host;
  const anyHost = host === "0.0.0.0" || host === "::";
  let listener: Listener;
  try {
    listener = await listen(toNodeHandler(createApp(gateway)), {
      hostname: host,
      port: opts.port ?? config.server.port,
      public: anyHost,
      isProd: true,
      showURL: false,
      qr: false,
      autoClose: false,
    });
  } catch (err) {
    await gateway.close();
    store.close();
    throw err;
  }
  const { port } = listener.address as { port: number };
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    gateway,
    close: () =>
      (closing ??= (async () => {
        await listener.close();
        await gateway.close();
        store.close();
      })()),
  };
}
