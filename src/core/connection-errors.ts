/**
 * 'error' listeners for connections that reconnect by themselves (pg pools, pooled and
 * dedicated pg clients, ioredis clients). An emitter with no 'error' listener ends the
 * process, so every one gets this: one line per source at most once a minute, never a URL's
 * password, and nothing else; the connection's own reconnect logic does the rest
 * (docs/fleet.md, "When a service is down").
 */
import { sayOnStderr } from "./one-line.js";

/** Lines per source: one in this window, then the rest of the window is counted, not written. */
const ERROR_LINE_EVERY_MS = 60_000;

/** A message without the password of any URL in it (`postgres://u:secret@h` → `postgres://u:***@h`). */
function withoutPasswords(message: string): string {
  return message.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, "$1***@");
}

/** An 'error' listener for `source` (e.g. "PostgreSQL pool"): logs at most once per ERROR_LINE_EVERY_MS. */
export function connectionErrorLine(source: string, write: (line: string) => void = sayOnStderr, now: () => number = Date.now) {
  let lastAt = -Infinity;
  let quiet = 0;
  return (err: unknown): void => {
    const t = now();
    if (t - lastAt < ERROR_LINE_EVERY_MS) return void quiet++;
    const more = quiet ? ` (${quiet} more since the last line)` : "";
    lastAt = t;
    quiet = 0;
    const message = withoutPasswords(err instanceof Error ? err.message : String(err));
    write(`[gateway] ${source}: ${message}${more}; reconnecting`);
  };
}
