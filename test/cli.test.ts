/** The CLI of docs/cli.md, run as a child process with its --json output parsed. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { completion, stream } from "./helpers/openai-wire.js";

let dir: string;
let db: string;
const run = (...args: string[]) => gateway(["--db", db, ...args], { cwd: dir });

beforeAll(() => {
  assertBuilt();
  dir = tempDir();
  db = join(dir, "g.db");
});

describe("keys", () => {
  test("create prints the full key once as JSON; list masks it; revoke by name", async () => {
    const created = await run("keys", "create", "--name", "ci", "--expires", "30d", "--json");
    expect(created.exitCode).toBe(0);
    expect(Object.keys(created.json)).toEqual(expect.arrayContaining(["id", "name", "key", "account", "expires_at"]));
    expect(created.json.key).toMatch(/^sk-[0-9A-Za-z]{40,}$/);
    expect(created.json.account).toBe("default");
    expect(Date.parse(created.json.expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const list = await run("keys", "list", "--json");
    if (!list.json) console.log("DEBUG", JSON.stringify(list));
    expect(list.exitCode).toBe(0);
    expect(list.stdout).not.toContain(created.json.key);
    expect(list.json[0]).toMatchObject({ id: created.json.id, name: "ci", masked: `sk-…${created.json.key.slice(-4)}`, state: "active", last_used_at: null });

    const revoked = await run("keys", "revoke", "ci", "--json");
    expect(revoked.exitCode).toBe(0);
    expect(revoked.json.state).toBe("revoked");
    expect((await run("keys", "list", "--json")).json[0].state).toBe("revoked");
    // The database holds only the hash.
    expect(readFileSync(db).includes(Buffer.from(created.json.key))).toBe(false);
  });

  test("bad usage exits 2 with one line on stderr; failures exit 1; no prompt without a TTY", async () => {
    const noName = await run("keys", "create");
    expect(noName.exitCode).toBe(2);
    expect(noName.stderr.trim().split("\n")).toHaveLength(1);
    expect((await run("keys", "create", "--name", "x", "--expires", "2001-01-01")).exitCode).toBe(2);
    expect((await run("keys", "create", "--name", "x", "--expires", "0d")).exitCode).toBe(2);
    expect((await run("keys", "create", "--name", "x", "--rpm", "-3")).exitCode).toBe(2);
    expect((await run("keys", "revoke", "no-such-key")).exitCode).toBe(1);
    expect((await run("nonsense")).exitCode).toBe(2);
    expect((await run("--help")).exitCode).toBe(0);
  });
});

describe("credits, byok, usage", () => {
  test("credits add/show are exact decimal strings; bad amounts are bad usage", async () => {
    // A new account needs --create (docs/cli.md: a typo must not create one silently).
    expect((await run("credits", "add", "10.25", "--account", "acme", "--create", "--json")).json).toMatchObject({ account: "acme", balance: "10.25" });
    expect((await run("credits", "add", "0.000000001", "--account", "acme", "--json")).json.balance).toBe("10.250000001");
    expect((await run("credits", "show", "--account", "acme", "--json")).json).toEqual({ account: "acme", balance: "10.250000001" });
    for (const bad of ["0", "-1", "abc", "0.0000000001"]) expect((await run("credits", "add", bad, "--account", "acme")).exitCode).toBe(2);
  });

  test("byok set --key-stdin stores it encrypted; list masks it; remove; unknown provider", async () => {
    const secret = "sk-ant-api03-VERYSECRETbyokKEY1234";
    const set = await gateway(["--db", db, "byok", "set", "anthropic", "--key-stdin", "--json"], { cwd: dir, input: `${secret}\n` });
    expect(set.exitCode).toBe(0);
    expect(set.json).toMatchObject({ provider: "anthropic", account: "default", masked: "…1234" });
    const list = await run("byok", "list", "--json");
    expect(list.json).toEqual([expect.objectContaining({ provider: "anthropic", masked: "…1234" })]);
    expect(list.stdout).not.toContain(secret);
    for (const f of [db, `${db}-wal`]) {
      try {
        expect(readFileSync(f).includes(Buffer.from("VERYSECRET"))).toBe(false);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    }
    expect((await run("byok", "set", "nosuch", "--key", "k")).exitCode).toBe(2);
    expect((await run("byok", "remove", "anthropic", "--json")).exitCode).toBe(0);
    expect((await run("byok", "remove", "anthropic")).exitCode).toBe(1);
  });

  test("usage --json has the contract's shape", async () => {
    const u = await run("usage", "--json", "--since", "7d");
    expect(u.exitCode).toBe(0);
    expect(u.json).toMatchObject({
      requests: expect.any(Number),
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      cost: expect.any(String),
      by_model: expect.any(Array),
      by_key: expect.any(Array),
    });
  });

  test("init --yes writes a config that loads; without --yes and no TTY it is bad usage", async () => {
    const d = tempDir();
    expect((await gateway(["init"], { cwd: d })).exitCode).toBe(2);
    const r = await gateway(["init", "--yes", "--no-check", "--json"], { cwd: d, env: { GROQ_API_KEY: "gsk_x" } });
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(d, "gateway.config.yaml"), "utf8")).toContain("${GROQ_API_KEY}");
    expect((await gateway(["keys", "list", "--json"], { cwd: d })).exitCode).toBe(0);
  });

  test("init proposes server.compat openai; --compat strict writes strict; an unknown mode is bad usage", async () => {
    const d = tempDir();
    const r = await gateway(["init", "--yes", "--json"], { cwd: d });
    expect(r.json).toMatchObject({ compat: "openai" });
    expect(readFileSync(join(d, "gateway.config.yaml"), "utf8")).toMatch(/compat: openai/);
    await gateway(["init", "--yes", "--force", "--compat", "strict"], { cwd: d });
    expect(readFileSync(join(d, "gateway.config.yaml"), "utf8")).toMatch(/compat: strict/);
    expect((await gateway(["init", "--yes", "--force", "--compat", "loose"], { cwd: d })).exitCode).toBe(2);
  });
});

describe("serve", () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream();
  });
  afterAll(async () => {
    await fake.close();
  });

  test("the OpenAI SDK, with a key from `keys create`, completes, streams and lists models; SIGTERM exits 0", async () => {
    const d = tempDir();
    writeFileSync(
      join(d, "gateway.config.yaml"),
      [
        "providers:",
        "  openai: { baseUrl: ${FAKE_URL}/v1, apiKey: ${OPENAI_API_KEY} }",
        "models:",
        "  - id: openai/gpt-4o-mini",
        "    pricing: { prompt: 0.15, completion: '0.6' }",
        "    endpoints: [{ provider: openai, model: gpt-4o-mini }]",
      ].join("\n"),
    );
    const env = { FAKE_URL: fake.url, OPENAI_API_KEY: "sk-upstream-from-env" };
    const created = await gateway(["keys", "create", "--name", "app", "--json"], { cwd: d, env });
    expect(created.stderr).toBe("");
    const key = created.json.key as string;
    expect((await gateway(["credits", "add", "1", "--json"], { cwd: d, env })).exitCode).toBe(0);
    const { url, proc } = await serve([], { cwd: d, env });
    try {
      const health = await fetch(`${url}/v1/health/providers`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: "ok", providers: [expect.objectContaining({ id: "openai" })] });

      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });
      fake.queue(completion("Hi from the fake"), stream(["a", "b"]));
      const r = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
      expect(r.choices[0]!.message.content).toBe("Hi from the fake");
      expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer sk-upstream-from-env");
      let text = "";
      for await (const c of await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true }))
        text += c.choices[0]?.delta.content ?? "";
      expect(text).toBe("ab");
      expect((await client.models.list()).data.map((m) => m.id)).toContain("openai/gpt-4o-mini");
    } finally {
      proc.kill("SIGTERM");
    }
    const done = await proc;
    expect(done.exitCode).toBe(0);
    const usage = await gateway(["usage", "--json"], { cwd: d, env });
    expect(usage.json.requests).toBe(2);
    expect(usage.json.cost).toBe("0.0000096");
  });

  test("zero-config: no config file, OPENAI_API_KEY set -> openai enabled", async () => {
    const d = tempDir();
    const { url, proc } = await serve([], { cwd: d, env: { OPENAI_API_KEY: "sk-zero-config" } });
    try {
      const body = (await (await fetch(`${url}/v1/health/providers`)).json()) as { providers: Array<{ id: string }> };
      expect(body.providers.map((p) => p.id)).toEqual(["openai"]);
      expect(JSON.stringify(body)).not.toContain("sk-zero-config");
    } finally {
      proc.kill("SIGTERM");
      await proc;
    }
  });

  test("an invalid config fails at start with the bad key's path", async () => {
    const d = tempDir();
    writeFileSync(join(d, "gateway.config.yaml"), "server:\n  port: not-a-port\n");
    const r = await gateway(["serve"], { cwd: d });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/server\.port/);
  });
});
