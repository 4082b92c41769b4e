/**
 * Readable log lines for a terminal: `HH:MM:SS.mmm LEVEL message key=value ...` from pino's
 * JSON records. A few lines instead of pino-pretty, which brings a dozen dependencies and a
 * worker thread for what is a convenience for a person watching a terminal; JSON stays the
 * format for machines (docs/observability.md). Every value is on the line it belongs to: text
 * from outside the gateway (a model name a client sent, an upstream's error) has its line breaks
 * and control characters escaped (core/one-line.ts), so it can neither start a line of its own
 * nor drive the terminal.
 */
import type { DestinationStream } from "pino";
import { oneLine } from "../core/one-line.js";

const COLOURS: Record<string, string> = { trace: "90", debug: "90", info: "32", warn: "33", error: "31", fatal: "35" };

/** Formats one pino JSON line. */
export function prettyLine(json: string, colour: boolean): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return `${oneLine(json)}\n`;
  }
  const { time, level, msg, ...rest } = rec;
  const at = typeof time === "number" ? new Date(time).toISOString().slice(11, 23) : "";
  const lvl = String(level ?? "")
    .toUpperCase()
    .padEnd(5);
  const fields = Object.entries(rest)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${oneLine(k)}=${oneLine(typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v))}`)
    .join(" ");
  const tag = colour ? `\x1b[${COLOURS[String(level)] ?? "0"}m${lvl}\x1b[0m` : lvl;
  return `${at} ${tag} ${oneLine(String(msg ?? ""))}${fields ? ` ${fields}` : ""}\n`;
}

/** A pino destination that writes formatted lines to `out`. */
export function prettyDestination(out: { write(s: string): boolean }, colour = true): DestinationStream {
  return {
    write(s: string) {
      for (const line of s.split("\n")) if (line) out.write(prettyLine(line, colour));
    },
  };
}
