/**
 * The gateway's log (contract.md §9): one JSON object per line when stdout is not a TTY,
 * short readable lines on a TTY (log-pretty.ts), either forced with `--log-format` or
 * `log.format`. Start, stop and operator notices are pino records (secrets redacted from
 * the one list in redact.ts); the per-request line has fixed fields and is written by
 * request-line.ts in pino's shape into the same destination (docs/observability.md says why).
 *
 * Never blocking the request path: lines of one event-loop turn are joined and handed to
 * pino's sonic-boom destination once, in asynchronous mode, which writes through libuv's
 * thread pool in batches of at least 4 KiB (flushed at least every second).
 */
import { mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { isatty } from "node:tty";
import { pino, type DestinationStream, type Level, type Logger } from "pino";
import type { Config } from "./config.js";
import { prettyDestination } from "./log-pretty.js";
import { CENSOR, REDACT_PATHS, scrub } from "./redact.js";

/** A reader that stops reading (a stuck pipe) must not grow memory without end: past this, records are dropped. */
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
  /** Records with secrets redacted by REDACT_PATHS (redact.ts). */
  readonly events: Logger;
  /** Whether request lines are wanted (level info or lower). */
  readonly requests: boolean;
  readonly bodies: boolean;
  /** Queues one finished request line (request-line.ts); written after this event-loop turn. */
  line(json: string): void;
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
  const fd = typeof target.dest === "number" ? target.dest : openLogFile(target.dest);
  // A terminal is read by a person as it happens: no 4 KiB batching there.
  const sonic = pino.destination({ dest: fd, sync: false, minLength: format === "pretty" ? 0 : 4096, maxLength: MAX_BUFFERED });
  const timer = format === "pretty" ? undefined : setInterval(() => tryFlush(sonic), 1000).unref();
  const dest: DestinationStream = format === "pretty" ? prettyDestination(sonic) : sonic;
  const events = pino({ level, base: undefined, redact: { paths: REDACT_PATHS, censor: CENSOR }, formatters: { level: (label) => ({ level: label }) } }, dest);
  const batch = new Batch(dest);
  let closed = false;
  return {
    events,
    requests: events.isLevelEnabled("info"),
    bodies: config.bodies,
    line: (json) => void (closed || batch.add(json)),
    notice(lvl, line, fields = {}) {
      say?.(line);
      if (format === "json") events[lvl]({ ...fields, event: "notice" }, scrub(line));
    },
    flush() {
      batch.flush();
      if (!closed) sonic.flushSync();
    },
    close() {
      if (closed) return;
      clearInterval(timer);
      batch.flush();
      sonic.flushSync();
      closed = true;
      if (fd !== target.dest) sonic.end();
    },
  };
}

/** Lines joined until the end of the current event-loop turn, then one write. */
class Batch {
  private text = "";
  private scheduled = false;
  private readonly write = () => this.flush();

  constructor(private readonly dest: DestinationStream) {}

  add(line: string): void {
    this.text += line;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.write);
    }
  }

  flush(): void {
    this.scheduled = false;
    if (!this.text) return;
    const text = this.text;
    this.text = "";
    this.dest.write(text);
  }
}

/** Opened here, synchronously, so the destination is ready (and closable) at once. */
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
  return { events: off, requests: false, bodies: false, line: () => {}, notice: (_l, line) => say?.(line), flush: () => {}, close: () => {} };
}
