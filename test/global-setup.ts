/**
 * Before the suite: a folder for every gateway's log (helpers/secrets.ts). After it: every
 * log line the suite produced is scanned for every secret the suite created or used, and
 * every line of a gateway's JSON log must be a JSON record (level, time, msg); one hit
 * fails the run, naming the file (and a secret's last four characters only).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function setup(): () => void {
  const planted = process.env.GATEWAY_TEST_LOG_DIR;
  const dir = planted || mkdtempSync(join(tmpdir(), "gw-logs-"));
  process.env.GATEWAY_TEST_LOG_DIR = dir;
  return () => {
    if (!existsSync(dir)) return; // the other project's teardown scanned and removed it
    const leaks = [...scan(dir), ...malformed(dir)];
    const logs = readdirSync(dir).filter((f) => f.endsWith(".log")).length;
    if (leaks.length) {
      // vitest reports a teardown's throw but still exits 0: the exit code is set here.
      process.exitCode = 1;
      throw new Error(`secrets in the gateway logs of this run (${dir}):\n${leaks.join("\n")}`);
    }
    process.stderr.write(`log redaction: ${logs} gateway logs scanned: no secret, every gateway line a JSON record\n`);
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

/** Lines of the in-process gateways' JSON logs that are not pino-shaped JSON records. */
export function malformed(dir: string): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.startsWith("gateway-") && n.endsWith(".log"))) {
    for (const line of readFileSync(join(dir, f), "utf8").split("\n")) {
      if (!line) continue;
      let rec: Record<string, unknown> | undefined;
      try {
        rec = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // reported below
      }
      if (!rec || typeof rec.level !== "string" || typeof rec.time !== "number" || typeof rec.msg !== "string")
        out.push(`  ${f}: not a JSON log record: ${line.slice(0, 80)}`);
    }
  }
  return out;
}
