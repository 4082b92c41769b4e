/**
 * Before the suite: a folder for every gateway's log (helpers/secrets.ts). After it: every
 * log line the suite produced is scanned for every secret the suite created or used; one
 * hit fails the run, naming the file and the secret's last four characters.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function setup(): () => void {
  const planted = process.env.GATEWAY_TEST_LOG_DIR;
  const dir = planted || mkdtempSync(join(tmpdir(), "gw-logs-"));
  process.env.GATEWAY_TEST_LOG_DIR = dir;
  return () => {
    const leaks = scan(dir);
    const logs = readdirSync(dir).filter((f) => f.endsWith(".log")).length;
    if (leaks.length) {
      // vitest reports a teardown's throw but still exits 0: the exit code is set here.
      process.exitCode = 1;
      throw new Error(`secrets in the gateway logs of this run (${dir}):\n${leaks.join("\n")}`);
    }
    process.stderr.write(`log redaction: ${logs} gateway logs scanned, no secret found\n`);
    if (!planted) rmSync(dir, { recursive: true, force: true });
  };
}

/** Every (file, secret) pair where the file contains the secret. */
export function scan(dir: string): string[] {
  const names = readdirSync(dir);
  const secrets = new Set<string>();
  for (const f of names.filter((n) => n.startsWith("secrets-"))) {
    for (const line of readFileSync(join(dir, f), "utf8").split("\n")) if (line) secrets.add(JSON.parse(line) as string);
  }
  const leaks: string[] = [];
  for (const f of names.filter((n) => n.endsWith(".log"))) {
    const text = readFileSync(join(dir, f), "utf8");
    for (const s of secrets) if (text.includes(s)) leaks.push(`  ${f}: …${s.slice(-4)}`);
  }
  return leaks;
}
