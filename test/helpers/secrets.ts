/**
 * The log-redaction check over the whole suite (docs/observability.md, issue 14): every gateway a
 * test starts writes its log to a file under GATEWAY_TEST_LOG_DIR (test/global-setup.ts sets
 * it), and every secret the helpers make or see is recorded there (gateway keys, upstream and
 * BYOK keys as they reach a fake upstream, passwords in provider URLs). When the run ends, the
 * global teardown fails it if any log file holds any recorded secret.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

/** Shorter values are too likely to occur by chance in a log line. */
const MIN_LENGTH = 8;

let files = 0;

export function logDir(): string | undefined {
  const dir = process.env.GATEWAY_TEST_LOG_DIR;
  if (dir) mkdirSync(dir, { recursive: true });
  return dir || undefined;
}

/** A new log file for one gateway (or one `gateway serve`), or undefined outside a suite run. */
export function logFile(kind: string): string | undefined {
  const dir = logDir();
  return dir && join(dir, `${kind}-${process.pid}-${++files}-${Date.now()}.log`);
}

/** Remembers a secret for the final scan. */
export function recordSecret(value: string | undefined | null): void {
  const dir = logDir();
  if (!dir || !value || value.length < MIN_LENGTH) return;
  appendFileSync(join(dir, `secrets-${process.pid}.txt`), `${JSON.stringify(value)}\n`);
}

/** Header values that carry an upstream credential (OpenAI, Anthropic, Gemini, Azure forms). */
const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "x-goog-api-key", "api-key"];

/** Records the credentials a fake upstream received: the platform and BYOK keys the gateway used. */
export function recordCredentialHeaders(headers: Record<string, string | string[] | undefined>): void {
  for (const name of CREDENTIAL_HEADERS) {
    const v = headers[name];
    const value = Array.isArray(v) ? v[0] : v;
    if (!value) continue;
    recordSecret(value.replace(/^Bearer\s+/i, ""));
  }
}

/** Records `apiKey` values and URL passwords anywhere in a config object. */
export function recordConfigSecrets(value: unknown): void {
  if (typeof value === "string") {
    const m = /\/\/[^/\s:@]+:([^/\s@]+)@/.exec(value);
    if (m) recordSecret(m[1]);
    return;
  }
  if (Array.isArray(value)) return value.forEach(recordConfigSecrets);
  if (!value || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value)) {
    if (/^(apiKey|api_key|secretAccessKey|sessionToken|token|password)$/.test(k) && typeof v === "string") recordSecret(v);
    else recordConfigSecrets(v);
  }
}
