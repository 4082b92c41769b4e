/**
 * The gateway's log (contract.md §9): pino, one JSON object per line when stdout is not a
 * TTY, short readable lines on a TTY (log-pretty.ts), either forced with `--log-format` or
 * `log.format`. Writes go to a sonic-boom destination in asynchronous mode: a record is
 * appended to a buffer and written by libuv's thread pool, so the request path never waits
 * on the disk or a slow pipe (docs/observability.md). Operator lines (start warnings, a
 * refused provider key) keep their one-line form on stderr, where people and scripts read
 * them, and are also log records in JSON mode.
 */
import { mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { isatty } from "node:tty";
import { pino, type Level, type Logger } from "pino";
import type { Config } from "./config.js";
import { prettyDestination } from "./log-pretty.js";
import { CENSOR, REDACT_PATHS, scrub } from "./redact.js";

export type LogFormat = "json" | "pretty";

export interface LogTarget {
  /** A file descriptor (1: stdout) or a file path (tests: one file per gateway). */
  dest: number | string;
  /** Overrides `log.format` / `log.level` (the CLI flags). */
  format?: LogFormat;
  level?: string;
  /** Where operator lines go as text (default: stderr); null: not as text. */
  say?: ((line: string) => void) | null;
}

export interface GatewayLog {
  /** Records with secrets redacted by REDACT_PATHS (redact.ts). */
  readonly events: Logger;
  /** The per-request line's logger: its fields are fixed and hold no secret (observer.ts), so it skips the redaction pass. */
  readonly requests: Logger;
  readonly bodies: boolean;
  /** An operator line: said as text (stderr) and, in JSON mode, also a log record. */
  notice(level: Level, line: string, fields?: Record<string, unknown>): void;
  /** Writes what is buffered, synchronously (before exit). */
  flush(): void;
  close(): void;
}

/** A quiet gateway: what `createGateway` uses when nobody asked for a log. */
export const SILENT: LogTarget = { dest: -1, level: "silent" };

export function createLog(config: Config["log"], target: LogTarget): GatewayLog {
  const level = target.level ?? config.level;
  const format = target.format ?? (config.format !== "auto" ? config.format : typeof target.dest === "number" && target.dest >= 0 && isatty(target.dest) ? "pretty" : "json");
  const say = target.say === undefined ? (line: string) => process.stderr.write(`${line}\n`) : target.say;
  if (level === "silent" || target.dest === -1) return quiet(say);
  // A TTY is read by a person as it happens: no batching. Elsewhere 4 KiB batches (pino's advice).
  const fd = typeof target.dest === "number" ? target.dest : openLogFile(target.dest);
  const sonic = pino.destination({ dest: fd, sync: false, minLength: format === "pretty" ? 0 : 4096 });
  // Batches are written at least once a second when traffic is light.
  const timer = format === "pretty" ? undefined : setInterval(() => tryFlush(sonic), 1000).unref();
  const dest = format === "pretty" ? prettyDestination(sonic) : sonic;
  const events = pino({ level, base: undefined, redact: { paths: REDACT_PATHS, censor: CENSOR }, formatters: { level: (label) => ({ level: label }) } }, dest);
  const requests = pino({ level, base: undefined, formatters: { level: (label) => ({ level: label }) } }, dest);
  let closed = false;
  return {
    events,
    requests,
    bodies: config.bodies,
    notice(lvl, line, fields = {}) {
      say?.(line);
      if (format === "json") events[lvl]({ ...fields, event: "notice" }, scrub(line));
    },
    flush: () => {
      if (!closed) sonic.flushSync();
    },
    close() {
      if (closed) return;
      clearInterval(timer);
      sonic.flushSync();
      closed = true;
      if (fd !== target.dest) sonic.end();
    },
  };
}

/** Opened here, synchronously, so the destination is ready at once (and closable at once). */
function openLogFile(path: string): number {
  mkdirSync(dirname(path), { recursive: true });
  return openSync(path, "a", 0o600);
}

function tryFlush(sonic: ReturnType<typeof pino.destination>): void {
  try {
    sonic.flush();
  } catch {
    // Destroyed (closing): nothing left to write.
  }
}

function quiet(say: ((line: string) => void) | null): GatewayLog {
  const off = pino({ level: "silent" });
  return { events: off, requests: off, bodies: false, notice: (_l, line) => say?.(line), flush: () => {}, close: () => {} };
}
