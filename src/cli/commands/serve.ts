/** `gateway serve`: run the HTTP server until SIGINT/SIGTERM, then shut down gracefully. */
import type { Command } from "commander";
import { startRetention } from "../../operations/retention.js";
import { fileModeWarning } from "../../store/sqlite/files.js";
import { loadSecret } from "../../access/byok.js";
import { unopenedLine } from "../../access/sealed.js";
import { readSealed } from "../../store/sealed.js";
import { UsageError } from "../../core/errors.js";
import { startupDone } from "../heap.js";
import { followInFlight } from "../heap-under-load.js";
import { configFor, globals } from "./context.js";
import { positiveIntOrZero } from "./parse.js";
import { startupWarnings, usableModels } from "../../app/startup-check.js";
import type { LogFormat } from "../../observability/log.js";
import { storeLine } from "../../app/store-line.js";

const LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

function logFormat(v: string): LogFormat {
  if (v !== "json" && v !== "pretty") throw new UsageError(`--log-format: expected json or pretty, got ${v}`);
  return v;
}

function logLevel(v: string): string {
  if (!LEVELS.includes(v)) throw new UsageError(`--log-level: expected one of ${LEVELS.join(", ")}, got ${v}`);
  return v;
}

/** Exit 1 with one line and the way out (docs/cli.md). */
function portInUse(host: string, port: number): Error {
  return new Error(
    `port ${port} on ${host} is already in use (another gateway or program): start on another one with --port ${port === 65535 ? 8788 : port + 1}, or set server.port in the config`,
  );
}

export function serveCommand(program: Command): void {
  program
    .command("serve")
    .description("run the gateway HTTP server")
    .option("--host <host>", "interface to bind (default: config server.host, 127.0.0.1)")
    .option("--port <port>", "port (default: config server.port, 8787; 0 picks a free one)", positiveIntOrZero)
    .option("--log-format <format>", "json | pretty (default: config log.format; JSON unless stdout is a terminal)", logFormat)
    .option("--log-level <level>", `${LEVELS.join(" | ")} (default: config log.level, info)`, logLevel)
    .action(async (opts: { host?: string; port?: number; logFormat?: LogFormat; logLevel?: string }, cmd: Command) => {
      // Loaded here so other commands start without the HTTP stack.
      const [{ startServer }, { guardProcess }] = await Promise.all([import("../../app/serve.js"), import("../../app/process-guard.js")]);
      const loaded = await configFor(cmd);
      // A provider must not start with an empty key because a variable was not exported.
      if (loaded.unset?.length) throw new UsageError(loaded.unset.join("\n"));
      const log = { dest: 1, format: opts.logFormat, level: opts.logLevel };
      const server = await startServer(loaded, { host: opts.host, port: opts.port, log }).catch((err: NodeJS.ErrnoException) => {
        throw err.code === "EADDRINUSE" ? portInUse(opts.host ?? loaded.config.server.host, opts.port ?? loaded.config.server.port) : err;
      });
      const gwLog = server.gateway.obs.log;
      let stopRetention = () => {};
      let stopping = false;
      const stop = (signal: string, code = 0) => {
        if (stopping) return;
        stopping = true;
        gwLog.notice("info", `${signal}: finishing in-flight requests...`, { event: "stopping" });
        stopRetention();
        void server.close().then(() => process.exit(code));
      };
      // Nothing uncaught ends the process abruptly: logged, counted, and a stop only when it cannot go on (app/process-guard.ts).
      guardProcess((line) => gwLog.notice("error", line), stop);
      // Before the ready line: a signal sent as soon as it is read must find the handler, not the default (exit at once).
      process.once("SIGINT", () => stop("SIGINT"));
      process.once("SIGTERM", () => stop("SIGTERM"));
      const providers = [...server.gateway.instances.values()].filter((i) => i.settings.apiKey !== undefined).map((i) => i.settings.id);
      const ready = { url: server.url, providers, models: server.gateway.catalog.size, usable_models: usableModels(server.gateway) };
      startupDone();
      followInFlight();
      // After the ready line: the upstream client loads while the first requests are awaited.
      setImmediate(() => server.gateway.upstream.warm());
      // The ready line first: scripts read the first stdout line of `serve --json`; log records follow it.
      // As text in a JSON log it goes to stderr: every stdout line parses (`| jq`, docs/observability.md).
      if (globals(cmd).json) process.stdout.write(`${JSON.stringify(ready)}\n`);
      else
        (gwLog.json ? process.stderr : process.stdout).write(
          `gateway listening on ${server.url} (providers with a platform key: ${providers.join(", ") || "none"}; ${ready.usable_models} of ${ready.models} catalog models usable on them)\n`,
        );
      gwLog.events.info({ event: "start", ...ready, interrupted_streams_billed: server.leftovers, pid: process.pid }, "gateway started");
      // Operator lines: one line each on stderr as before, and log records (observability/log.ts notice).
      const say = (line: string) => gwLog.notice(line.includes("error") ? "error" : "warn", line);
      gwLog.notice("info", storeLine(loaded.config, process.env));
      const modes = fileModeWarning(loaded.config.database);
      if (modes) say(modes);
      // After listen, in hour-sized steps between requests: never on a request's path.
      stopRetention = startRetention(server.gateway.store, loaded.config.retention.days, (line) => gwLog.notice("info", line));
      // Every sealed value (BYOK keys, webhook secrets), read once after listen (docs/cli.md).
      const unopened = unopenedLine(await readSealed(loaded.config.database), loadSecret(loaded.config.database, process.env));
      if (unopened) say(`warning: ${unopened}`);
      for (const line of startupWarnings(server.gateway)) say(line);
      // Leave the process to the server: run() must not set an exit code.
      await new Promise(() => {});
    });
}
