/**
 * docs/cli.md `gateway doctor [--json] [--offline]`: config valid, every provider's key
 * present and accepted (live against a fake speaking OpenAI's GET /v1/models,
 * https://platform.openai.com/docs/api-reference/models/list), database reachable with safe
 * modes and a passing integrity check, port free; one line per finding; exit 1 when anything is wrong.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, freePort, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { makeCerts, startH2Upstream } from "./helpers/tls.js";

const GOOD = "sk-doctor-good-0001";
let fake: FakeUpstream;

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream((req) =>
    req.headers.authorization === `Bearer ${GOOD}`
      ? { json: { object: "list", data: [{ id: "gpt-4o-mini", object: "model", created: 1, owned_by: "openai" }] } }
      : { status: 401, json: { error: { message: "Incorrect API key provided", type: "invalid_request_error", param: null, code: "invalid_api_key" } } },
  );
});
afterAll(() => fake.close());

function install(port: number, providers: string[]): string {
  const dir = tempDir();
  writeFileSync(join(dir, "gateway.config.yaml"), [`server: { port: ${port} }`, "providers:", ...providers, ""].join("\n"));
  return dir;
}

test("a good install: every check ok, exit 0; --json has the same findings", async () => {
  const dir = install(await freePort(), [`  openai: { baseUrl: '${fake.url}/v1', apiKey: ${GOOD} }`]);
  await gateway(["keys", "create", "--name", "app"], { cwd: dir }); // creates the database
  fake.requests.length = 0;
  const r = await gateway(["doctor"], { cwd: dir });
  expect(r.exitCode).toBe(0);
  const lines = r.stdout.split("\n");
  expect(lines).toEqual([
    expect.stringMatching(/^ok    config: .*gateway\.config\.yaml is valid$/),
    "ok    provider openai: key accepted (1 model listed)",
    expect.stringMatching(/^ok    database: .*gateway\.db is reachable and passes PRAGMA integrity_check$/),
    "ok    file modes: database files are the owner's alone",
    expect.stringMatching(/^ok    port: 127\.0\.0\.1:\d+ is free$/),
  ]);
  expect(fake.requests.map((q) => `${q.method} ${q.path} ${q.headers.authorization}`)).toEqual([`GET /v1/models Bearer ${GOOD}`]);
  const j = await gateway(["doctor", "--json"], { cwd: dir });
  expect(j.exitCode).toBe(0);
  expect(j.json.ok).toBe(true);
  expect(j.json.findings).toHaveLength(5);
  expect(j.json.findings.every((f: { status: string }) => f.status === "ok")).toBe(true);
});

test("a broken install: rejected key, missing key, open file modes, port taken, corrupt database: one FAIL line each, exit 1; the key never shown", async () => {
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
  const port = (holder.address() as { port: number }).port;
  try {
    const dir = install(port, [`  openai: { baseUrl: '${fake.url}/v1', apiKey: sk-doctor-bad-9999 }`, "  anthropic: {}"]);
    writeFileSync(join(dir, "gateway.db"), "this is not a SQLite database, only text long enough to have a header of sorts".repeat(20));
    chmodSync(join(dir, "gateway.db"), 0o644);
    const r = await gateway(["doctor"], { cwd: dir });
    expect(r.exitCode).toBe(1);
    const fails = r.stdout.split("\n").filter((l) => l.startsWith("FAIL"));
    expect(fails).toEqual([
      "FAIL  provider openai: key rejected (HTTP 401): fix providers.openai.apiKey or OPENAI_API_KEY",
      "FAIL  provider anthropic: no key: set providers.anthropic.apiKey or ANTHROPIC_API_KEY",
      expect.stringMatching(/^FAIL  database: .*gateway\.db (cannot be read|fails PRAGMA integrity_check): /),
      expect.stringMatching(/^FAIL  file modes: database files open to group\/others: .*gateway\.db \(0644\)/),
      `FAIL  port: 127.0.0.1:${port} is in use by another program: set server.port, or start with --port ${port + 1}`,
    ]);
    expect(r.stderr.trim()).toBe("error: 5 problems found");
    expect(r.stdout + r.stderr).not.toContain("sk-doctor-bad-9999");
  } finally {
    holder.close();
  }
});

test("--offline: keys present is enough, no call made; an invalid config is one FAIL line per problem", async () => {
  const dir = install(await freePort(), [`  openai: { baseUrl: '${fake.url}/v1', apiKey: sk-anything }`]);
  fake.requests.length = 0;
  const r = await gateway(["doctor", "--offline"], { cwd: dir });
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain("ok    provider openai: key present (not checked live: --offline)");
  expect(fake.requests).toHaveLength(0);

  writeFileSync(join(dir, "gateway.config.yaml"), "providers:\n  openai: { baseURL: 'http://x/v1' }\n");
  const bad = await gateway(["doctor", "--json"], { cwd: dir });
  expect(bad.exitCode).toBe(1);
  expect(bad.json).toEqual({
    ok: false,
    findings: [{ check: "config", status: "fail", message: "gateway.config.yaml:2: providers.openai.baseURL: unknown key (did you mean baseUrl?)" }],
  });
});

test("while serve runs: its port and its database lock are the gateway's own, not problems", async () => {
  const dir = install(await freePort(), [`  openai: { baseUrl: '${fake.url}/v1', apiKey: ${GOOD} }`]);
  const port = Number((await import("node:fs")).readFileSync(join(dir, "gateway.config.yaml"), "utf8").match(/port: (\d+)/)![1]);
  const s = await serve(["--port", String(port)], { cwd: dir });
  try {
    const r = await gateway(["doctor", "--offline"], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`ok    database: in use by gateway serve (PID ${s.proc.pid})`);
    expect(r.stdout).toContain(`ok    port: 127.0.0.1:${port} is in use, presumably by the gateway serve running on this database (PID ${s.proc.pid})`);
  } finally {
    s.proc.kill("SIGTERM");
    await s.proc;
  }
});

test("a provider behind a private CA: doctor trusts server.upstream.caFile as serve does", async () => {
  const certs = makeCerts();
  const models = { json: { object: "list", data: [{ id: "gpt-4o-mini", object: "model", created: 1, owned_by: "openai" }] } };
  const tls = await startH2Upstream(certs, () => models);
  try {
    const dir = tempDir();
    const port = await freePort();
    const yaml = (ca: string) => [`server: { port: ${port}${ca} }`, "providers:", `  openai: { baseUrl: '${tls.url}/v1', apiKey: ${GOOD} }`, ""].join("\n");
    writeFileSync(join(dir, "gateway.config.yaml"), yaml(`, upstream: { caFile: '${certs.caFile}' }`));
    const r = await gateway(["doctor", "--json"], { cwd: dir });
    expect(r.json.findings[1]).toEqual({ check: "provider openai", status: "ok", message: "key accepted (1 model listed)" });
    expect(tls.requests.map((q) => `${q.httpVersion} ${q.path}`)).toEqual(["2.0 /v1/models"]);
    // Without the CA the same provider is not trusted: the check is live, not assumed.
    writeFileSync(join(dir, "gateway.config.yaml"), yaml(""));
    const untrusted = await gateway(["doctor", "--json"], { cwd: dir });
    expect(untrusted.json.findings[1]).toMatchObject({ check: "provider openai", status: "fail" });
    // A file that holds no certificate is said at once, not left to fail every connection.
    writeFileSync(join(dir, "not-a-ca.pem"), "hello\n");
    writeFileSync(join(dir, "gateway.config.yaml"), yaml(", upstream: { caFile: not-a-ca.pem }"));
    const bad = await gateway(["doctor", "--json"], { cwd: dir });
    expect(bad.exitCode).toBe(1);
    expect(bad.json.findings).toEqual([
      {
        check: "config",
        status: "fail",
        message: expect.stringMatching(/server\.upstream\.caFile: .*not-a-ca\.pem: not a PEM certificate \(.*no start line\)$/),
      },
    ]);
  } finally {
    await tls.close();
    certs.remove();
  }
});
