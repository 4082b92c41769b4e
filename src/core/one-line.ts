/**
 * Text for a log line that must stay one line whoever wrote parts of it (docs/observability.md,
 * "Text from outside"): a model name, an error message quoting a request or an upstream answer.
 * Line breaks and every other control character (C0, DEL, C1, which terminals act on) and the
 * Unicode line and paragraph separators are written as JSON writes them (`\n`, `\u001b`), so a
 * client cannot end the gateway's line and start one of its own, nor colour or move a terminal.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const escape = (c: string): string => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

export function oneLine(text: string): string {
  return text.replace(CONTROL, escape);
}

/** An operator line on stderr, for what runs before or without the gateway's log (a pool's reconnects). */
export function sayOnStderr(line: string): void {
  process.stderr.write(`${oneLine(line)}\n`);
}
