/**
 * A configured Redis is checked and named, never with its password (docs/cli.md, "The first
 * run" and "What `serve` tells the operator"): `doctor` fails in one line when it does not answer
 * PING; `serve` says in one start-up line which store and which Redis it uses.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { assertBuilt, freePort, gateway, serve, tempDir } from "./helpers/cli.js";
import { REDIS_URL, startRedisServer } from "./helpers/redis.js";
import { createTestDatabase } from "./helpers/services.js";

const PASSWORD = "redis-pw-never-shown-7731";
const withPassword = (url: string, password: string) => url.replace("://", `://:${password}@`);

/** A config with one provider (checked --offline: its key is present), so only Redis can fail. */
function install(lines: string[]): string {
  const dir = tempDir();
  const provider = ["providers:", "  openai: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: sk-doctor-redis-0001 }"];
  writeFileSync(join(dir, "gateway.config.yaml"), [...lines, ...provider, ""].join("\n"));
  return dir;
}

const hostPort = (url: string) => new URL(url).host;

test("doctor: a Redis that answers PING is ok", async () => {
  assertBuilt();
  const dir = install([`server: { port: ${await freePort()} }`, `redis: ${REDIS_URL}`]);
  const r = await gateway(["doctor", "--offline"], { cwd: dir });
  expect(r.stdout).toContain(`ok    redis: Redis at ${hostPort(REDIS_URL)} answers PING (PONG): limits and circuits are shared`);
  expect(r.stdout.split("\n").filter((l) => l.startsWith("FAIL"))).toEqual([]);
});

test("doctor: a configured Redis that is down is one FAIL line, exit 1, its password never shown", async () => {
  const down = await startRedisServer();
  await down.stop();
  const dir = install([`server: { port: ${await freePort()} }`]);
  const url = withPassword(down.url, PASSWORD);
  const r = await gateway(["doctor", "--offline"], { cwd: dir, env: { GATEWAY_REDIS: url } });
  expect(r.exitCode).toBe(1);
  const fails = r.stdout.split("\n").filter((l) => l.startsWith("FAIL"));
  expect(fails).toEqual([
    expect.stringMatching(
      new RegExp(`^FAIL  redis: Redis at ${hostPort(down.url)} does not answer PING \\(.+\\): rate limits would fall back to each process$`),
    ),
  ]);
  expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  const j = await gateway(["--json", "doctor", "--offline"], { cwd: dir, env: { GATEWAY_REDIS: url } });
  expect(j.json.findings.filter((f: { status: string }) => f.status === "fail").map((f: { check: string }) => f.check)).toEqual(["redis"]);
});

/** `serve` until its store line is on stderr; returns its stderr, with its stdout (the log) after it. */
async function storeLineOf(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<string> {
  const { proc } = await serve(args, opts);
  let err = "";
  let log = "";
  proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  proc.stdout!.on("data", (d: Buffer) => (log += d.toString()));
  await expect.poll(() => err, { timeout: 10_000 }).toContain("store: ");
  proc.kill("SIGTERM");
  await proc;
  return `${err}\n${log}`;
}

test("serve names its store in one line: SQLite, limits per process", async () => {
  const dir = install([]);
  const out = await storeLineOf(["--db", join(dir, "gateway.db")], { cwd: dir });
  expect(out.split("\n").filter((l) => l.startsWith("store: "))).toEqual([
    expect.stringContaining(`store: SQLite ${join(dir, "gateway.db")}, limits per process`),
  ]);
}, 30_000);

test("serve names its store in one line: PostgreSQL and Redis by host, never a password", async () => {
  const db = await createTestDatabase();
  try {
    const dir = install([]);
    // PostgreSQL's test cluster trusts local connections, so the password is carried, not checked.
    const pg = db.url.replace(/^postgres(ql)?:\/\/([^@/:]+)(:[^@/]*)?@/, `postgres://$2:${PASSWORD}-pg@`);
    const out = await storeLineOf(["--db", pg], { cwd: dir, env: { GATEWAY_REDIS: withPassword(REDIS_URL, PASSWORD) } });
    const u = new URL(db.url);
    expect(out).toContain(`store: PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname}, limits in Redis ${hostPort(REDIS_URL)}`);
    expect(out).not.toContain(PASSWORD);
  } finally {
    await db.drop();
  }
}, 60_000);
