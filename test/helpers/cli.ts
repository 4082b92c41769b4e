/** Runs the built `gateway` bin as a child process, as an operator's script would. */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createServer } from "node:net";
import { writeFileSync } from "node:fs";
import { execa, type ResultPromise } from "execa";
import { logFile, recordSecret } from "./secrets.js";

/** The secrets a CLI call carries or prints (helpers/secrets.ts): keys it created, BYOK keys it set, keys in its environment. */
function recordCliSecrets(args: string[], env: Record<string, string> | undefined, input: string | undefined, json: any): void {
  const at = args.indexOf("--key");
  if (at >= 0) recordSecret(args[at + 1]);
  if (args.includes("--key-stdin")) recordSecret(input?.trim());
  for (const [name, value] of Object.entries(env ?? {})) if (/KEY|SECRET|TOKEN|PASSWORD/.test(name)) recordSecret(value);
  if (json && typeof json === "object" && typeof json.key === "string") recordSecret(json.key);
}

/** Gateway keys a command printed (`keys create` prints the new key, JSON or not). */
function recordPrintedKeys(stdout: string): void {
  for (const m of stdout.matchAll(/\bsk-[A-Za-z0-9]{20,}/g)) recordSecret(m[0]);
}

export const BIN = resolve("bin/gateway.js");

export function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error("dist/ is missing: run `npm test` (it builds first) or `npm run build`");
}

/** A folder of this test run's own (setup/services.ts makes it and removes it at the end), so a run leaves nothing in /tmp. */
export function tempDir(): string {
  return mkdtempSync(join(process.env.GATEWAY_TEST_TMP ?? tmpdir(), "gw-cli-"));
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  json: any;
}

export async function gateway(args: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  const r = await execa("node", [BIN, ...args], {
    cwd: opts.cwd,
    env: { GATEWAY_SECRET: "cli-test-secret", ...opts.env },
    extendEnv: false,
    input: opts.input,
    stdin: opts.input === undefined ? "ignore" : undefined,
    reject: false,
    timeout: 60_000,
  });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    /* not JSON */
  }
  recordCliSecrets(args, opts.env, opts.input, json);
  recordPrintedKeys(r.stdout);
  return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

/** `gateway serve` in the background; resolves once it printed its URL. */
export async function serve(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ url: string; proc: ResultPromise }> {
  const proc = execa("node", [BIN, "serve", "--port", "0", "--json", ...args], {
    cwd: opts.cwd,
    env: { GATEWAY_SECRET: "cli-test-secret", PATH: process.env.PATH ?? "", ...opts.env },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
  });
  recordCliSecrets(args, opts.env, undefined, undefined);
  // What it wrote (the ready line, its log, its notices) joins the final redaction scan.
  const file = logFile("serve");
  if (file) void proc.then((r) => writeFileSync(file, `${r.stdout}\n${r.stderr}`));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = "";
    proc.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolveUrl((JSON.parse(line) as { url: string }).url);
    });
    void proc.then((r) => reject(new Error(`serve exited ${r.exitCode}: ${r.stderr}`)));
  });
  return { url, proc };
}

/** A port nobody listens on now (for a child `gateway serve --port`, or a port-in-use check). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}
