/**
 * The README's move of a single-file install to PostgreSQL (README "Running several processes"),
 * run as it stands: its blocks read from README.md and pasted into a clean shell in order (the
 * role and database made by its `psql` line, the fleet's secret, `db copy`, `serve`), with only
 * the hosts pointed at this machine's PostgreSQL and Redis, the names made unique to this run, the
 * port a free one and `node bin/gateway.js` at the clone's bin. The install had been sealing with
 * its own `gateway.db.secret` (no GATEWAY_SECRET), as a single-file install does by default;
 * after the move, under a new GATEWAY_SECRET, its account's BYOK key serves a request and its
 * webhook receives an alert signed with the secret it was given (docs/fleet.md). And a copy that
 * cannot open a sealed value refuses before writing anything; `doctor` fails on a secret that
 * cannot open them.
 */
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import pg from "pg";
import { afterAll, beforeAll, expect, inject, test } from "vitest";
import { assertBuilt, BIN, freePort, gateway, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { completion } from "./helpers/openai-wire.js";
import { REDIS_URL, useRedis } from "./helpers/redis.js";
import { recordSecret } from "./helpers/secrets.js";
import { createTestDatabase, PG_ADMIN_URL } from "./helpers/services.js";
import { receiver, verify, type Receiver } from "./helpers/webhook.js";
import { writeFileSync } from "node:fs";

const BYOK_KEY = "sk-acme-own-openai-key-move-5521";
const PLATFORM_KEY = "sk-platform-key-move-8834";
const NAME = `gwt_${inject("runId")}_move_${process.pid}`;
const redis = useRedis();

/** The README's ```sh blocks of the move, in order, found by what they hold. */
function readmeBlocks(): string[][] {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Running several processes"));
  const blocks = section
    .split("```sh\n")
    .slice(1, 4)
    .map((b) => b.split("\n```")[0]!);
  const find = (needle: string) => blocks.find((b) => b.includes(needle)) ?? assert(`README: no block with ${needle}`);
  return [find("CREATE ROLE"), find("db copy --from"), find("serve --port")].map((b) => b.split("\n").filter((l) => l.trim() && !l.trim().startsWith("#")));
}

const assert = (what: string): never => {
  throw new Error(what);
};

/** The BYOK key for the `openai` instance (which has no platform key), the platform key for `platform`. */
function upstream(req: Recorded): Reply {
  const auth = req.headers.authorization;
  if (auth !== `Bearer ${BYOK_KEY}` && auth !== `Bearer ${PLATFORM_KEY}`)
    return { status: 401, json: { error: { message: "bad key", type: "invalid_request_error" } } };
  return completion("moved", { prompt_tokens: 12, completion_tokens: 5 });
}

let fake: FakeUpstream;
let hook: Receiver;
let dir: string;
let port: number;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream(upstream);
  hook = await receiver();
  dir = tempDir();
  port = await freePort();
}, 60_000);

afterAll(async () => {
  const pid = dir && existsSync(join(dir, "serve.pid")) ? Number(readFileSync(join(dir, "serve.pid"), "utf8")) : 0;
  if (pid) {
    process.kill(pid, "SIGTERM");
    await new Promise((r) => setTimeout(r, 1_500)); // its connections close before the database goes
  }
  await admin(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
  await admin(`DROP ROLE IF EXISTS ${NAME}`);
  await Promise.all([fake?.close(), hook?.close()]);
});

const ask = (key: string, model: string) =>
  fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 20 }),
  });

test("the README's move to PostgreSQL: BYOK keys and webhook secrets sealed with gateway.db.secret work after it", async () => {
  writeFileSync(
    join(dir, "gateway.config.yaml"),
    [
      "providers:",
      `  openai: { baseUrl: '${fake.url}/v1' }`,
      `  platform: { plugin: openai-compatible, baseUrl: '${fake.url}/v1', apiKey: ${PLATFORM_KEY} }`,
      "models:",
      "  - { id: openai/gpt-4o-mini, pricing: { prompt: 0.15, completion: 0.6 }, endpoints: [{ provider: openai, model: gpt-4o-mini }] }",
      "  - { id: platform/cheap, pricing: { prompt: 1, completion: 1 }, endpoints: [{ provider: platform, model: cheap }] }",
      `redis: { url: '${REDIS_URL}', prefix: '${redis.prefix}' }`,
      "alerts: { pollMs: 50 }",
      "",
    ].join("\n"),
  );
  // The single-file install, as its operator ran it: no GATEWAY_SECRET, so a gateway.db.secret of its own.
  const before = { GATEWAY_SECRET: "" };
  const key = (await gateway(["keys", "create", "--name", "app", "--account", "acme", "--create", "--json"], { cwd: dir, env: before })).json.key as string;
  expect((await gateway(["credits", "add", "1", "--account", "acme"], { cwd: dir, env: before })).exitCode).toBe(0);
  const byok = await gateway(["byok", "set", "openai", "--key-stdin", "--account", "acme"], { cwd: dir, env: before, input: `${BYOK_KEY}\n` });
  expect(byok.exitCode, byok.stderr).toBe(0);
  const added = await gateway(["alerts", "add", "--url", hook.url, "--account", "acme", "--json"], { cwd: dir, env: before });
  expect(added.exitCode, added.stderr).toBe(0);
  const signing = added.json.secret as string;
  recordSecret(signing);
  expect((await gateway(["alerts", "thresholds", "--account", "acme", "--low-balance", "5"], { cwd: dir, env: before })).exitCode).toBe(0);
  expect(existsSync(join(dir, "gateway.db.secret"))).toBe(true);

  const url = `postgres://${NAME}:pw@127.0.0.1:5432/${NAME}`;
  const pasted = readmeBlocks()
    .flat()
    .map((line) =>
      line
        .replaceAll("node bin/gateway.js", `node ${JSON.stringify(BIN)}`)
        .replaceAll("postgres://gateway:pw@db.internal:5432/gateway", url)
        .replaceAll("-h db.internal", "-h 127.0.0.1")
        .replaceAll("ROLE gateway ", `ROLE ${NAME} `)
        .replaceAll("DATABASE gateway OWNER gateway", `DATABASE ${NAME} OWNER ${NAME}`)
        .replaceAll("redis://cache.internal:6379", REDIS_URL)
        .replaceAll("8787", String(port))
        .replace(/ &(\s+#.*)?$/, " > serve.log 2>&1 & echo $! > serve.pid"),
    );
  expect(pasted.join("\n")).not.toMatch(/db\.internal|cache\.internal/);
  // A clean shell: PATH and HOME only (no GATEWAY_* variables, no provider keys).
  const r = await execa("bash", ["-e", "-c", pasted.join("\n")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    extendEnv: false,
    reject: false,
    timeout: 90_000,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toContain("Copied: counts and totals match.");
  expect(r.stdout).toMatch(/re-sealed +1 BYOK key \(acme\/openai\) and 1 alert webhook secret \(\S+\) under GATEWAY_SECRET/);
  const fleetSecret = readFileSync(join(dir, "fleet.secret"), "utf8").trim();
  recordSecret(fleetSecret);
  expect(fleetSecret).toMatch(/^[0-9a-f]{64}$/);

  await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/v1/health/providers`).catch(() => null))?.status, { timeout: 20_000 }).toBe(200);
  // The account's own key, copied: it serves the request.
  const served = await ask(key, "openai/gpt-4o-mini");
  expect(served.status, await served.clone().text()).toBe(200);
  expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${BYOK_KEY}`);
  // A charged request leaves the balance below the alert's $5: delivered, signed with the copied secret.
  expect((await ask(key, "platform/cheap")).status).toBe(200);
  await expect.poll(() => hook.got.length, { timeout: 10_000 }).toBe(1);
  expect(verify(signing, hook.got[0]!)).toBe(true);
  expect(hook.bodies()[0]).toMatchObject({ type: "balance.low", account: "acme" });
  const log = readFileSync(join(dir, "serve.log"), "utf8");
  expect(log).not.toMatch(/cannot be decrypted/);
  for (const secret of [BYOK_KEY, signing, fleetSecret]) expect(`${r.stdout}${r.stderr}${log}`).not.toContain(secret);

  // doctor on the fleet: every sealed value opens with the fleet's secret, none with another.
  const fleet = { GATEWAY_DB: url, GATEWAY_SECRET: fleetSecret };
  const ok = await gateway(["doctor", "--offline", "--json"], { cwd: dir, env: fleet });
  expect(ok.json.findings).toContainEqual({
    check: "sealed values",
    status: "ok",
    message: expect.stringMatching(/^1 BYOK key \(acme\/openai\) and 1 alert webhook secret .*: all open/),
  });
  const wrong = await gateway(["doctor", "--offline", "--json"], { cwd: dir, env: { ...fleet, GATEWAY_SECRET: "not-the-fleet-secret" } });
  expect(wrong.exitCode).toBe(1);
  expect(wrong.json.findings).toContainEqual({
    check: "sealed values",
    status: "fail",
    message: expect.stringMatching(/^1 BYOK key \(acme\/openai\) and 1 alert webhook secret \(\S+\) stored cannot be decrypted with the current secret/),
  });
}, 150_000);

test("a sealed value no secret opens: db copy refuses before writing anything, naming it and the fix", async () => {
  const src = tempDir();
  const file = join(src, "gateway.db");
  const sealedWith = { GATEWAY_SECRET: "the-secret-it-ran-with" };
  expect((await gateway(["keys", "create", "--name", "app", "--account", "acme", "--create", "--db", file], { env: sealedWith })).exitCode).toBe(0);
  const set = await gateway(["byok", "set", "openai", "--key-stdin", "--account", "acme", "--db", file], { env: sealedWith, input: `${BYOK_KEY}\n` });
  expect(set.exitCode).toBe(0);
  const target = await createTestDatabase();
  try {
    const r = await gateway(["db", "copy", "--from", file, "--to", target.url], { env: { GATEWAY_SECRET: "another-secret" } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      "error: 1 BYOK key (acme/openai) of the source cannot be opened with GATEWAY_SECRET; nothing was copied. Run db copy with GATEWAY_SECRET set to the secret the source ran with, or with the source's .secret file beside it. A value no secret opens was already unreadable in the source: remove it there ('gateway byok remove <provider> --account <account>', 'gateway alerts remove <id>'), copy, and set it again on the target",
    ]);
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    try {
      expect((await c.query("SELECT to_regclass('accounts') AS t")).rows).toEqual([{ t: null }]); // not even migrated
    } finally {
      await c.end();
    }
    // With the secret it ran with, the same copy goes through and re-seals under it.
    const ok = await gateway(["db", "copy", "--from", file, "--to", target.url, "--json"], { env: sealedWith });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.json.resealed).toBe(1);
  } finally {
    await target.drop();
  }
}, 60_000);
