/**
 * A base URL the provider's own API answers 404 (docs/cli.md "A base URL that answers 404"):
 * Anthropic's typed with `/v1` as OpenAI's needs (the adapter adds `/v1/...` itself), OpenAI's
 * typed without it. `init` names the URL that 404'd and the fix and writes nothing (`--yes`), or
 * asks for the base URL again (on a terminal); `doctor` fails (exit 1); `serve --log-level warn`
 * says once which provider and which path answered 404 while clients get the generic 400. The
 * fakes speak each provider's real wire: Anthropic's models list
 * (https://docs.anthropic.com/en/api/models-list) and its `not_found_error`, a recorded Messages
 * answer; OpenAI's models list and its "Invalid URL" 404.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { assertBuilt, BIN, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { completion } from "./helpers/openai-wire.js";
import { KEYS, runOnPty } from "./helpers/pty.js";

const ANTHROPIC_KEY = "sk-ant-api03-base-url-test-0a1b2c";
const OPENAI_KEY = "sk-proj-base-url-test-3d4e5f";
const ANSWER = JSON.parse(readFileSync(new URL("./fixtures/providers/anthropic/anthropic-text.json", import.meta.url), "utf8")) as unknown;
const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? "", GATEWAY_SECRET: "cli-test-secret", ...extra });

function anthropic(req: Recorded): Reply {
  if (req.headers["x-api-key"] !== ANTHROPIC_KEY)
    return { status: 401, json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } };
  if (req.method === "GET" && req.path.split("?")[0] === "/v1/models")
    return {
      json: {
        data: [{ type: "model", id: "claude-sonnet-4-5-20250929", display_name: "Claude Sonnet 4.5", created_at: "2025-09-29T00:00:00Z" }],
        has_more: false,
        first_id: "claude-sonnet-4-5-20250929",
        last_id: "claude-sonnet-4-5-20250929",
      },
    };
  if (req.method === "POST" && req.path === "/v1/messages") return { json: ANSWER };
  return { status: 404, json: { type: "error", error: { type: "not_found_error", message: "Not Found" } } };
}

function openai(req: Recorded): Reply {
  if (req.method === "GET" && req.path === "/v1/models")
    return { json: { object: "list", data: [{ id: "gpt-4o-mini", object: "model", created: 1, owned_by: "openai" }] } };
  if (req.method === "POST" && req.path === "/v1/chat/completions") return completion("hi");
  const url = req.path.replace(/^\/v1/, "");
  return { status: 404, json: { error: { message: `Invalid URL (${req.method} ${url})`, type: "invalid_request_error", param: null, code: null } } };
}

let claude: FakeUpstream;
let gpt: FakeUpstream;
beforeAll(async () => {
  assertBuilt();
  [claude, gpt] = await Promise.all([startFakeUpstream(anthropic), startFakeUpstream(openai)]);
});
afterAll(async () => {
  await Promise.all([claude?.close(), gpt?.close()]);
});

const NO_V1 = "the base URL should not end in /v1 (providers.anthropic.baseUrl; the default is https://api.anthropic.com)";

describe("init --yes", () => {
  test("Anthropic's base URL with /v1: the check names the URL that 404'd and the fix; nothing written, exit 1", async () => {
    const dir = tempDir();
    const r = await gateway(["init", "--yes", "--provider", "anthropic", "--base-url", `${claude.url}/v1`], {
      cwd: dir,
      env: env({ ANTHROPIC_API_KEY: ANTHROPIC_KEY }),
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`  anthropic: key not checked: ${claude.url}/v1/v1/models answered HTTP 404: ${NO_V1}`);
    expect(r.stderr).toContain("error: the base URL of anthropic answered HTTP 404; nothing written (fix it, or pass --no-check)");
    expect(existsSync(join(dir, "gateway.config.yaml"))).toBe(false);
    expect(r.stdout + r.stderr).not.toContain(ANTHROPIC_KEY);
    // The same provider at its right base URL passes: the fake is not what failed.
    const right = await gateway(["init", "--yes", "--provider", "anthropic", "--base-url", claude.url], {
      cwd: dir,
      env: env({ ANTHROPIC_API_KEY: ANTHROPIC_KEY }),
    });
    expect(right.exitCode, right.stderr).toBe(0);
    expect(right.stderr).toContain("anthropic: key accepted (1 model listed)");
  });

  test("OpenAI's base URL without /v1: 'should end in /v1'", async () => {
    const dir = tempDir();
    const r = await gateway(["init", "--yes", "--provider", "openai", "--base-url", gpt.url], { cwd: dir, env: env({ OPENAI_API_KEY: OPENAI_KEY }) });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `  openai: key not checked: ${gpt.url}/models answered HTTP 404: the base URL should end in /v1 (providers.openai.baseUrl; the default is https://api.openai.com/v1)`,
    );
    expect(existsSync(join(dir, "gateway.config.yaml"))).toBe(false);
  });
});

describe("written anyway (--no-check)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    const r = await gateway(["init", "--yes", "--no-check", "--provider", "anthropic", "--base-url", `${claude.url}/v1`, "--port", "0"], {
      cwd: dir,
      env: env({ ANTHROPIC_API_KEY: ANTHROPIC_KEY }),
    });
    expect(r.exitCode, r.stderr).toBe(0);
  });

  test("doctor: one FAIL line naming the URL and the fix, exit 1", async () => {
    const r = await gateway(["doctor"], { cwd: dir, env: env({ ANTHROPIC_API_KEY: ANTHROPIC_KEY }) });
    expect(r.exitCode).toBe(1);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("FAIL"))).toEqual([
      `FAIL  provider anthropic: key not checked: ${claude.url}/v1/v1/models answered HTTP 404: ${NO_V1}`,
    ]);
    expect(r.stdout + r.stderr).not.toContain(ANTHROPIC_KEY);
  });

  test("serve --log-level warn: clients get the generic 400, the log says once which provider and path answered 404", async () => {
    const model = "anthropic/claude-sonnet-4-5";
    const models = [
      `models:`,
      `  - { id: ${model}, pricing: { prompt: 3, completion: 15 }, endpoints: [{ provider: anthropic, model: claude-sonnet-4-5-20250929 }] }`,
    ];
    writeFileSync(join(dir, "gateway.config.yaml"), `${readFileSync(join(dir, "gateway.config.yaml"), "utf8")}${models.join("\n")}\n`);
    const extra = { ANTHROPIC_API_KEY: ANTHROPIC_KEY };
    const key = (await gateway(["keys", "create", "--name", "app", "--json"], { cwd: dir, env: extra })).json.key as string;
    expect((await gateway(["credits", "add", "5"], { cwd: dir, env: extra })).exitCode).toBe(0);
    const before = claude.requests.length;
    const s = await serve(["--log-level", "warn"], { cwd: dir, env: extra });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${s.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 20 }),
        });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("upstream_rejected");
      }
    } finally {
      s.proc.kill("SIGTERM");
    }
    const out = await s.proc;
    expect(claude.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(Array(3).fill("POST /v1/v1/messages"));
    const said = String(out.stderr)
      .split("\n")
      .filter((l) => l.includes("HTTP 404"));
    expect(said).toEqual([
      `[gateway] error: provider anthropic answered HTTP 404 to POST /v1/v1/messages: ${NO_V1}, or the provider does not serve that model (run gateway doctor); its requests get 400 upstream_rejected`,
    ]);
    expect(`${String(out.stdout)}${String(out.stderr)}`).not.toContain(ANTHROPIC_KEY);
  });
});

test("init on a terminal: a base URL that answers 404 is asked again, and the right one is written", async () => {
  const dir = tempDir();
  const pty = runOnPty(["node", BIN, "init", "--provider", "anthropic"], { cwd: dir, env: env() });
  try {
    await pty.waitFor("Port:");
    pty.type(KEYS.enter);
    await pty.waitFor("anthropic: where is the key?");
    pty.type(KEYS.enter); // nothing in ANTHROPIC_API_KEY here: "paste it" is the default
    await pty.waitFor("anthropic API key:");
    pty.type(`${ANTHROPIC_KEY}${KEYS.enter}`);
    await pty.waitFor("anthropic: base URL");
    pty.type(`${claude.url}/v1${KEYS.enter}`);
    await pty.waitFor(`anthropic: key not checked: ${claude.url}/v1/v1/models answered HTTP 404: the base URL should not end in /v1`);
    await pty.waitFor("anthropic: enter the base URL again?");
    pty.type(KEYS.enter);
    await pty.waitFor("anthropic: base URL");
    pty.type(`${claude.url}${KEYS.enter}`);
    await pty.waitFor("anthropic: key accepted (1 model listed)");
    await pty.waitFor("Requests accepted:");
    pty.type(KEYS.enter);
    await pty.waitFor("Wrote gateway.config.yaml");
    expect(await pty.exited).toBe(0);
  } finally {
    pty.kill();
  }
  expect(pty.text()).not.toContain(ANTHROPIC_KEY);
  const written = readFileSync(join(dir, "gateway.config.yaml"), "utf8");
  expect(written).toContain(`baseUrl: ${claude.url}\n`);
});
