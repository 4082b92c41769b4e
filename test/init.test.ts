/**
 * docs/cli.md `gateway init`: for each provider its key (masked) or the variable holding
 * it, an optional base URL, one live check of the key against the provider (here a fake
 * speaking OpenAI's GET /v1/models, https://platform.openai.com/docs/api-reference/models/list),
 * a config written 0600 when it holds a key, and `--yes` for scripts. Driven as a person
 * would: on a pseudo-terminal (util-linux `script`), and with flags.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { assertBuilt, BIN, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { completion } from "./helpers/openai-wire.js";
import { KEYS, runOnPty } from "./helpers/pty.js";

const GOOD = "sk-proj-good-key-0123456789";
const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? "", GATEWAY_SECRET: "cli-test-secret", ...extra });

/** OpenAI's models list for the good key, 401 (OpenAI's invalid_api_key body) for any other. */
function openaiFake(req: Recorded): Reply {
  if (req.headers.authorization !== `Bearer ${GOOD}`) {
    return { status: 401, json: { error: { message: "Incorrect API key provided", type: "invalid_request_error", param: null, code: "invalid_api_key" } } };
  }
  if (req.method === "GET" && req.path === "/v1/models")
    return { json: { object: "list", data: [{ id: "gpt-4o-mini", object: "model", created: 1, owned_by: "openai" }] } };
  return completion("hello from the fake");
}

let fake: FakeUpstream;
beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream(openaiFake);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const modelsCalls = () => fake.requests.filter((r) => r.method === "GET" && r.path === "/v1/models");

/** The written config starts under `serve`, and a chat request goes through it to the fake. */
async function serveAnswers(dir: string, extraEnv: Record<string, string> = {}): Promise<void> {
  const key = (await gateway(["keys", "create", "--name", "app", "--json"], { cwd: dir, env: extraEnv })).json.key as string;
  await gateway(["credits", "add", "5"], { cwd: dir, env: extraEnv });
  const s = await serve([], { cwd: dir, env: extraEnv });
  try {
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("hello from the fake");
  } finally {
    s.proc.kill("SIGTERM");
    await s.proc;
  }
}

describe("init on a pseudo-terminal", () => {
  test("asks for the key masked, checks it live (a rejected key is asked again), writes it 0600, and serve accepts the file", async () => {
    const dir = tempDir();
    const pty = runOnPty(["node", BIN, "init"], { cwd: dir, env: env() });
    try {
      await pty.waitFor("Port:");
      pty.type(KEYS.enter);
      await pty.waitFor("Providers");
      pty.type(KEYS.space + KEYS.enter); // openai is the first choice
      await pty.waitFor("openai: where is the key?");
      pty.type(KEYS.enter); // nothing in OPENAI_API_KEY here: "paste it" is the default
      await pty.waitFor("openai API key:");
      pty.type(`sk-wrong-key-999${KEYS.enter}`);
      await pty.waitFor("openai: base URL");
      pty.type(`${fake.url}/v1${KEYS.enter}`);
      await pty.waitFor("openai: key rejected (HTTP 401)");
      await pty.waitFor("enter the key again?");
      pty.type(KEYS.enter);
      await pty.waitFor("openai: where is the key?");
      pty.type(KEYS.enter);
      await pty.waitFor("openai API key:");
      pty.type(`${GOOD}${KEYS.enter}`);
      await pty.waitFor("openai: base URL");
      pty.type(`${fake.url}/v1${KEYS.enter}`);
      await pty.waitFor("openai: key accepted (1 model listed)");
      await pty.waitFor("Requests accepted:");
      pty.type(KEYS.enter);
      await pty.waitFor("Wrote gateway.config.yaml (1 provider: openai; it holds a key: mode 0600)");
      expect(await pty.exited).toBe(0);
    } finally {
      pty.kill();
    }
    // Masked: what was typed never showed on the terminal.
    expect(pty.text()).not.toContain(GOOD);
    expect(pty.text()).not.toContain("sk-wrong-key-999");
    // The live check hit the fake with each key typed, in that order.
    expect(modelsCalls().map((r) => r.headers.authorization)).toEqual(["Bearer sk-wrong-key-999", `Bearer ${GOOD}`]);
    const file = join(dir, "gateway.config.yaml");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain(`apiKey: ${GOOD}`);
    expect(readFileSync(file, "utf8")).toContain(`baseUrl: ${fake.url}/v1`);
    await serveAnswers(dir);
  });
});

describe("init --yes", () => {
  test("--provider with the key from the environment: written as ${VAR} (not the key), checked live against the fake, accepted by serve", async () => {
    const dir = tempDir();
    const r = await gateway(["init", "--yes", "--provider", "openai", "--base-url", `${fake.url}/v1`, "--json"], { cwd: dir, env: { OPENAI_API_KEY: GOOD } });
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ providers: ["openai"], compat: "openai" });
    expect(r.stderr).toContain("openai: key accepted (1 model listed)");
    expect(modelsCalls().map((c) => c.headers.authorization)).toEqual([`Bearer ${GOOD}`]);
    const text = readFileSync(join(dir, "gateway.config.yaml"), "utf8");
    expect(text).toContain("apiKey: ${OPENAI_API_KEY}");
    expect(text).not.toContain(GOOD);
    await serveAnswers(dir, { OPENAI_API_KEY: GOOD });
  });

  test("two providers need --base-url <provider>=<url>; a key the provider rejects writes nothing (exit 1)", async () => {
    const dir = tempDir();
    const both = ["init", "--yes", "--provider", "openai", "--provider", "groq"];
    const ambiguous = await gateway([...both, "--base-url", `${fake.url}/v1`], { cwd: dir, env: { OPENAI_API_KEY: GOOD, GROQ_API_KEY: "gsk_bad" } });
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toContain("--base-url: with several providers write --base-url <provider>=<url>");
    const r = await gateway([...both, "--base-url", `openai=${fake.url}/v1`, "--base-url", `groq=${fake.url}/v1`], {
      cwd: dir,
      env: { OPENAI_API_KEY: GOOD, GROQ_API_KEY: "gsk_bad" },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("openai: key accepted");
    expect(r.stderr).toContain("groq: key rejected (HTTP 401)");
    expect(r.stderr).toContain("error: the key of groq was rejected; nothing written (fix it, or pass --no-check)");
    expect(r.stderr).not.toContain("gsk_bad");
    expect(existsSync(join(dir, "gateway.config.yaml"))).toBe(false);
  });

  test("a provider whose variable is unset is bad usage; --no-check makes no call; an unreachable provider is said, and the file written", async () => {
    const dir = tempDir();
    const unset = await gateway(["init", "--yes", "--provider", "anthropic"], { cwd: dir });
    expect(unset.exitCode).toBe(2);
    expect(unset.stderr).toContain("--provider anthropic: no key in the environment (ANTHROPIC_API_KEY); export it first");

    const noCheck = await gateway(["init", "--yes", "--no-check", "--provider", "openai", "--base-url", `${fake.url}/v1`], {
      cwd: dir,
      env: { OPENAI_API_KEY: "sk-whatever" },
    });
    expect(noCheck.exitCode).toBe(0);
    expect(fake.requests).toHaveLength(0);

    // A port nothing listens on: "offline" from the check's point of view.
    const closed = await startFakeUpstream();
    const deadUrl = closed.url;
    await closed.close();
    const off = await gateway(["init", "--yes", "--force", "--provider", "openai", "--base-url", `${deadUrl}/v1`], { cwd: dir, env: { OPENAI_API_KEY: GOOD } });
    expect(off.exitCode).toBe(0);
    expect(off.stderr).toContain("openai: key not checked: unreachable (ECONNREFUSED)");
    expect(statSync(join(dir, "gateway.config.yaml")).mode & 0o077).not.toBe(0); // no key in it: not forced private
  });

  test("--provider local: an OpenAI-compatible server on this machine, no key needed", async () => {
    const dir = tempDir();
    const local = await startFakeUpstream(() => ({ json: { object: "list", data: [{ id: "llama3.2", object: "model", created: 1, owned_by: "library" }] } }));
    try {
      const r = await gateway(["init", "--yes", "--provider", "local", "--base-url", `${local.url}/v1`], { cwd: dir });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain("local: server accepted (1 model listed)");
      expect(readFileSync(join(dir, "gateway.config.yaml"), "utf8")).toMatch(/local:\n\s+plugin: openai-compatible\n\s+baseUrl: http:\/\/127\.0\.0\.1:\d+\/v1/);
      expect(local.requests.map((q) => `${q.method} ${q.path}`)).toEqual(["GET /v1/models"]);
    } finally {
      await local.close();
    }
  });
});
