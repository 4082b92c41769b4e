/**
 * The gateway's log (docs/observability.md): one JSON object per line when stdout is not a TTY,
 * short readable lines on a TTY (observability/log-pretty.ts), either forced with `--log-format` or
 * `log.format`. Start, stop and operator notices are pino records (secrets redacted from
 * the one list in observability/redact.ts); the per-request line has fixed fields and is written by
 * observability/request-line.ts in pino's shape, as bytes, into the same destination (docs/observability.md says why).
 * Writing never blocks the request path: observability/log-writer.ts.
 */
import { mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { isatty } from "node:tty";
import { pino, type DestinationStream, type Level, type Logger } from "pino";
import { LogWriter } from "./log-writer.js";
import type { Config } from "../config/config.js";
import { oneLine } from "../core/one-line.js";
import { prettyDestination } from "./log-pretty.js";
import { CENSOR, REDACT_PATHS, scrub } from "./redact.js";
import { lineBound, requestLine, RequestLines } from "./request-line.js";
import type { RequestRecord } from "./request-record.js";

/** A reader that stops reading (a stuck pipe) must not grow memory without end: past this, lines are dropped. */
const MAX_BUFFERED = 16 * 1024 * 1024;

export type LogFormat = "json" | "pretty";

export interface LogTarget {
  /** A file descriptor (1: stdout) or a file path (tests: one file per gateway); -1: none. */
  dest: number | string;
  /** Override `log.format` / `log.level` (the CLI flags). */
  format?: LogFormat;
  level?: string;
  /** Where operator lines go as text (default: stderr); null: not as text. */
  say?: ((line: string) => void) | null;
}

export interface GatewayLog {
  /** Records with secrets redacted by REDACT_PATHS (observability/redact.ts). */
  readonly events: Logger;
  /** Whether request lines are wanted (level info or lower). */
  readonly requests: boolean;
  readonly bodies: boolean;
  /** Records go out as JSON lines: nothing else may be written to their stream (`| jq`). */
  readonly json: boolean;
  /** Queues the line of one finished request (observability/request-line.ts). */
  request(rec: RequestRecord, time: number): void;
  /** An operator line: said as text (stderr, on one line: core/one-line.ts) and, in JSON mode, also a log record. */
  notice(level: Level, line: string, fields?: Record<string, unknown>): void;
  /** Writes what waits, and closes a log file. */
  close(): Promise<void>;
}

/** A quiet gateway: what `createGateway` uses when nobody asked for a log. */
export const SILENT: LogTarget = { dest: -1, level: "silent" };

export function createLog(config: Config["log"], target: LogTarget): GatewayLog {
  const level = target.level ?? config.level;
  const format =
    target.format ??
    (config.format !== "auto" ? config.format : typeof target.dest === "number" && target.dest >= 0 && isatty(target.dest) ? "pretty" : "json");
  const say = target.say === undefined ? (line: string) => process.stderr.write(`${line}\n`) : target.say;
  if (level === "silent" || target.dest === -1) return quiet(say);
  const fd = typeof target.dest === "number" ? target.dest : openLogFile(target.dest);
  // A terminal is read by a person as it happens: written at once. Elsewhere in writes of 32 KiB (fewer system calls; the timer bounds the delay).
  const writer = new LogWriter(fd, { minLength: format === "pretty" ? 0 : 32 * 1024, maxPending: MAX_BUFFERED }, fd !== target.dest);
  const timer = setInterval(() => writer.flush(), 1000).unref();
  const dest: DestinationStream = format === "pretty" ? prettyDestination(writer) : writer;
  const lines = new RequestLines();
  const events = pino({ level, base: undefined, redact: { paths: REDACT_PATHS, censor: CENSOR }, formatters: { level: (label) => ({ level: label }) } }, dest);
  return {
    events,
    requests: events.isLevelEnabled("info"),
    bodies: config.bodies,
    json: format === "json",
    request:
      format === "pretty"
        ? (rec, time) => void dest.write(requestLine(rec, time))
        : (rec, time) => {
            // JSON: written as bytes into the writer's buffer, no string made (observability/line-bytes.ts).
            const out = writer.room(lineBound(rec));
            if (!out) return;
            lines.write(out, rec, time);
            writer.wrote();
          },
    notice(lvl, line, fields = {}) {
      say?.(oneLine(line));
      if (format === "json") events[lvl]({ ...fields, event: "notice" }, scrub(line));
    },
    async close() {
      clearInterval(timer);
      await writer.end();
    },
  };
}

/** Opened here, synchronously, so the destination is ready (and closable) at once. */
function openLogFile(path: string): number {
  mkdirSync(dirname(path), { recursive: true });
  return openSync(path, "a", 0o600);
}

function quiet(say: ((line: string) => void) | null): GatewayLog {
  const off = pino({ level: "silent" });
  return { events: off, requests: false, bodies: false, json: false, request: () => {}, notice: (_l, line) => say?.(oneLine(line)), close: async () => {} };
}
