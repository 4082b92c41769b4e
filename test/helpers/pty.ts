/**
 * A command on a pseudo-terminal, as a person at a terminal runs it: util-linux `script`
 * allocates the pty (node-pty would need a native build). Tests wait for a prompt's text,
 * then type keys.
 */
import { spawn, type ChildProcess } from "node:child_process";

export const KEYS = { enter: "\r", down: "\x1b[B", space: " " };

export interface Pty {
  /** Everything the terminal showed so far, ANSI codes stripped. */
  text(): string;
  /** Resolves when the screen shows `pattern` after the last `waitFor` match. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
  type(keys: string): void;
  exited: Promise<number>;
  kill(): void;
}

// eslint-disable-next-line no-control-regex -- terminal escapes are what this strips
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]|\r/g;

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

export function runOnPty(argv: string[], opts: { cwd: string; env: Record<string, string> }): Pty {
  // -q quiet, -f flush at once, -e the command's exit code, -c the command; /dev/null: no typescript file.
  const child: ChildProcess = spawn("script", ["-qfec", argv.map(quote).join(" "), "/dev/null"], {
    cwd: opts.cwd,
    env: { TERM: "xterm", COLUMNS: "200", LINES: "50", ...opts.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  let seen = 0;
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    raw += d.toString("utf8");
    for (const l of [...listeners]) l();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? -1)));
  const text = () => raw.replace(ANSI, "");
  return {
    text,
    type: (keys) => void child.stdin!.write(keys),
    kill: () => void child.kill("SIGKILL"),
    exited,
    waitFor: (pattern, timeoutMs = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          const rest = text().slice(seen);
          const m =
            typeof pattern === "string"
              ? rest.includes(pattern)
                ? { index: rest.indexOf(pattern), length: pattern.length }
                : null
              : (() => {
                  const r = pattern.exec(rest);
                  return r ? { index: r.index, length: r[0].length } : null;
                })();
          if (!m) return;
          seen += m.index + m.length;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${String(pattern)}; the terminal shows:\n${text().slice(seen)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
  };
}
