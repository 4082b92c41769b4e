/**
 * Runs a coding-agent CLI (node_modules/.agent-clients, pinned in test/agents/clients.json) as a
 * user would, with HOME and its config dirs in a temp dir under GATEWAY_TEST_TMP, on loopback
 * only (the switches of each client: README "Coding agents"), with a timeout. The output and
 * stderr come back for the assertions (and for the failure message).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const agentBin = (name: "codex" | "opencode") => resolve("node_modules/.agent-clients/node_modules/.bin", name);

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh temp dir (removed with GATEWAY_TEST_TMP at teardown): HOME, the client's config, the cwd. */
export function agentDirs(prefix: string): { home: string; cwd: string } {
  const root = mkdtempSync(join(process.env.GATEWAY_TEST_TMP ?? tmpdir(), `${prefix}-`));
  const home = join(root, "home");
  const cwd = join(root, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { home, cwd };
}

/** The environment a client gets: PATH and the given variables only (no keys or proxies of the test run leak in). */
export function agentEnv(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local/state"),
    TERM: "dumb",
    NO_COLOR: "1",
    ...extra,
  };
}

/** Runs `bin args` in `cwd` with stdin from /dev/null; kills it after `timeoutMs`. */
export function runAgent(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 90_000): Promise<AgentRun> {
  return new Promise((done) => {
    const child = spawn(bin, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const timer = setTimeout(() => {
      stderr += `\n[test] killed after ${timeoutMs} ms`;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** For a failed expectation: what the client said. */
export const transcript = (r: AgentRun) => `exit ${r.code}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`;
