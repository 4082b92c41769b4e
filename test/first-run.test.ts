/**
 * docs/cli.md, what an operator and a client are told on the first run and the bad days:
 * a refused platform key (502 upstream_auth_failed within 1 s, an error line, `misconfigured`
 * in health), startup warnings, config mistakes named, one serve per SQLite file, the port
 * hint, and request-side messages (no key sent, a bare model id, a missing provider key).
 * The upstream fake speaks OpenAI's wire (https://platform.openai.com/docs/api-reference/chat/create;
 * a bad key gets 401 invalid_api_key, https://platform.openai.com/docs/guides/error-codes).
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { messageItem, responsesAnswer } from "./helpers/responses-wire.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, expectError, post } from "./helpers/http.js";
import { completion, error } from "./helpers/openai-wire.js";

const UPSTREAM_KEY = "sk-upstream-refused-4242";
const hi = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };
const yaml = (lines: string[]) => `${lines.join("\n")}\n`;

function configIn(dir: string, lines: string[]): void {
  writeFileSync(join(dir, "gateway.config.yaml"), yaml(lines));
}

/** Stops a `serve` child and returns all it wrote on stderr. */
async function stop(s: Awaited<ReturnType<typeof serve>>): Promise<string> {
  s.proc.kill("SIGTERM");
  return String((await s.proc).stderr);
}

beforeAll(() => assertBuilt());

describe("the provider refuses the gateway's own key", () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream(() => error(401, `Incorrect API key provided: ${UPSTREAM_KEY}`));
  });
  afterAll(() => fake.close());

  test("502 upstream_auth_failed within 1 s, no retry, one error line on stderr, misconfigured in health; the key never shown", async () => {
    const dir = tempDir();
    configIn(dir, [
      "providers:",
      `  openai: { baseUrl: '${fake.url}/v1', apiKey: ${UPSTREAM_KEY} }`,
      // The default backoff (10 s of rounds) is what a retried 401 would cost.
      "models:",
      "  - { id: openai/gpt-4o-mini, pricing: { prompt: '0.15', completion: '0.6' }, endpoints: [{ provider: openai, model: gpt-4o-mini }] }",
    ]);
    const key = (await gateway(["keys", "create", "--name", "app", "--json"], { cwd: dir })).json.key as string;
    await gateway(["credits", "add", "5"], { cwd: dir });
    const s = await serve([], { cwd: dir });
    let stderr: string;
    try {
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        const res = await post(s.url, "/v1/chat/completions", hi, bearer(key));
        const err = await expectError(res, 502, "upstream_error", "upstream_auth_failed");
        expect(Date.now() - started).toBeLessThan(1000);
        expect(err.message).toContain("The gateway's key for provider openai was rejected");
        expect(err.message).not.toContain(UPSTREAM_KEY);
      }
      // The first request tried it once; the second skipped it (the provider is misconfigured).
      expect(fake.requests).toHaveLength(1);
      const health = (await (await fetch(`${s.url}/v1/health/providers`)).json()) as { providers: unknown[] };
      expect(health.providers).toEqual([expect.objectContaining({ id: "openai", status: "misconfigured" })]);
    } finally {
      stderr = await stop(s);
    }
    // Once, although two requests met the refused key: at most one line a minute per provider.
    const lines = stderr.split("\n").filter((l) => l.includes("rejected the gateway's key"));
    expect(lines).toEqual([expect.stringContaining("[gateway] error: provider openai rejected the gateway's key (HTTP 401): check providers.openai.apiKey")]);
    expect(stderr).not.toContain(UPSTREAM_KEY);
  });

  test("a BYOK key's rejection keeps its own answer (400 byok_key_rejected), the provider not misconfigured", async () => {
    const dir = tempDir();
    configIn(dir, ["providers:", `  openai: { baseUrl: '${fake.url}/v1' }`, "retry: { initialInterval: 5, maxInterval: 10, maxElapsedTime: 300 }"]);
    const key = (await gateway(["keys", "create", "--name", "app", "--json"], { cwd: dir })).json.key as string;
    await gateway(["byok", "set", "openai", "--key", "sk-account-own-1111"], { cwd: dir });
    const s = await serve([], { cwd: dir });
    try {
      await expectError(await post(s.url, "/v1/chat/completions", hi, bearer(key)), 400, "invalid_request_error", "byok_key_rejected");
      const health = await (await fetch(`${s.url}/v1/health/providers`)).text();
      expect(health).not.toContain("misconfigured");
    } finally {
      s.proc.kill("SIGTERM");
      await s.proc;
    }
  });
});

describe("serve at start", () => {
  test("no provider key at all: a warning line instead of a silent start; the 404 names the provider whose key is missing", async () => {
    const dir = tempDir();
    const key = (await gateway(["keys", "create", "--name", "app", "--json"], { cwd: dir })).json.key as string;
    const s = await serve([], { cwd: dir });
    let stderr: string;
    try {
      const res = await post(s.url, "/v1/chat/completions", hi, bearer(key));
      const err = await expectError(res, 404, "not_found", "model_not_found");
      expect(err.message).toBe(
        "The model 'openai/gpt-4o-mini' is not available: the gateway has no key for provider openai. " +
          "The operator sets one (gateway init, or providers.openai.apiKey), or the account brings its own (gateway byok set).",
      );
    } finally {
      stderr = await stop(s);
    }
    expect(stderr).toContain("warning: no provider is usable: none has a key, so every chat request gets 404 model_not_found");
  });

  test("a configured provider without a key: one line naming it and where its key goes", async () => {
    const dir = tempDir();
    configIn(dir, ["providers:", "  anthropic: {}", "  local: { plugin: openai-compatible, baseUrl: 'http://127.0.0.1:9/v1' }"]);
    const stderr = await stop(await serve([], { cwd: dir }));
    expect(stderr).toContain(
      "warning: provider anthropic has no key (set providers.anthropic.apiKey or ANTHROPIC_API_KEY): its models answer 404 except for accounts with their own key (gateway byok set)",
    );
    expect(stderr).not.toContain("provider local has no key"); // a local server needs none
    expect(stderr).not.toContain("no provider is usable");
  });

  test("a second serve on the same SQLite file refuses, naming the PID; a lock left by a killed serve is taken over", async () => {
    const dir = tempDir();
    const first = await serve([], { cwd: dir });
    try {
      const second = await gateway(["serve", "--port", "0"], { cwd: dir });
      expect(second.exitCode).toBe(1);
      expect(second.stderr.trim()).toBe(
        `error: the database ./gateway.db is in use by another gateway serve (PID ${first.proc.pid}): one serve per SQLite file; stop that one first, or give this one another --db`,
      );
    } finally {
      first.proc.kill("SIGKILL"); // no clean-up: the lock file stays behind
      await first.proc;
    }
    const third = await serve([], { cwd: dir });
    third.proc.kill("SIGTERM");
    await third.proc;
  });

  test("port in use: exit 1, one line with a --port hint", async () => {
    const dir = tempDir();
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
    const port = (holder.address() as { port: number }).port;
    try {
      const r = await gateway(["serve", "--port", String(port)], { cwd: dir });
      expect(r.exitCode).toBe(1);
      expect(r.stderr.trim()).toBe(
        `error: port ${port} on 127.0.0.1 is already in use (another gateway or program): start on another one with --port ${port + 1}, or set server.port in the config`,
      );
      // The failed start released its database lock: the next serve starts.
      const next = await serve([], { cwd: dir });
      next.proc.kill("SIGTERM");
      await next.proc;
    } finally {
      holder.close();
    }
  });
});

describe("config mistakes, named", () => {
  const serveIn = async (lines: string[], env: Record<string, string> = {}) => {
    const dir = tempDir();
    configIn(dir, lines);
    return gateway(["serve", "--port", "0"], { cwd: dir, env });
  };

  test("baseURL (the SDKs' spelling) in a provider block is refused with a suggestion", async () => {
    const r = await serveIn(["providers:", "  openai:", "    baseURL: http://127.0.0.1:9/v1", "    apiKey: sk-x"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe("error: gateway.config.yaml:3: providers.openai.baseURL: unknown key (did you mean baseUrl?)");
  });

  test("an option the plugin does not read, and an endpoint naming no provider instance, are refused at load", async () => {
    const r = await serveIn([
      "providers:",
      "  anthropic:",
      "    apiKey: sk-ant-x",
      "    maxToken: 100",
      "models:",
      "  - id: anthropic/claude-x",
      "    endpoints:",
      "      - { provider: antropic, model: claude-x }",
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("gateway.config.yaml:4: providers.anthropic.maxToken: unknown key (did you mean maxTokens?)");
    expect(r.stderr).toContain("gateway.config.yaml:8: models.0.endpoints.0.provider: no provider instance 'antropic' (did you mean anthropic?)");
  });

  test("an unknown plugin lists the built-in ones (no module-resolution error, no dist/ path)", async () => {
    const r = await serveIn(["providers:", "  mine: { plugin: opneai, apiKey: sk-x }"]);
    expect(r.exitCode).toBe(2);
    // The list is the plugins', sorted (it grows with each provider added).
    expect(r.stderr).toMatch(
      /error: providers\.mine\.plugin: unknown provider plugin 'opneai' \(did you mean openai\?\): the built-in plugins are anthropic, azure, bedrock, ([a-z-]+, )*openai, openai-compatible, ([a-z-]+, )*xai\b/,
    );
    expect(r.stderr).not.toMatch(/dist\/|Cannot find package/);
  });

  test("an unset variable is named, not 'expected number'", async () => {
    const r = await serveIn(["server:", "  port: 80${PORT_SUFFIX}"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(
      "error: gateway.config.yaml:2: server.port: ${PORT_SUFFIX} is not set; set it, or write ${PORT_SUFFIX:-} to leave the value out when it is unset",
    );
  });

  test("a YAML syntax error shows the operator's own line, never an internal placeholder", async () => {
    const r = await serveIn(["providers:", "  openai: { apiKey: ${OPENAI_API_KEY}, baseUrl: ${BASE} ]"], { OPENAI_API_KEY: "sk-x", BASE: "http://x" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).not.toContain("__GATEWAY_ENV");
    expect(r.stderr.split("\n").slice(0, 3)).toEqual([
      "error: gateway.config.yaml:2:57: Flow map in block collection must be sufficiently indented and end with a }",
      "    openai: { apiKey: ${OPENAI_API_KEY}, baseUrl: ${BASE} ]",
      `  ${" ".repeat(56)}^`, // under the ']' of the line as written (the parser saw tokens of other lengths)
    ]);
  });
});

describe("request-side messages", () => {
  let fake: FakeUpstream;
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    // OpenAI's own /v1/responses is called natively (docs/responses.md); chat everywhere else.
    fake = await startFakeUpstream((req) =>
      req.path.endsWith("/responses") ? responsesAnswer([messageItem("hi there")], { input_tokens: 5, output_tokens: 2 }) : completion("hi there"),
    );
    gw = await startGateway(openaiConfig(fake.url, { aliases: { mini: "openai/gpt-4o-mini" } }));
    key = await gw.createKey();
    await gw.addCredits("5");
  });
  afterAll(async () => {
    await gw.close();
    await fake.close();
  });

  test("no Authorization header: 401 saying no key was sent, unlike a wrong key's message (both invalid_api_key)", async () => {
    const none = await expectError(await post(gw.url, "/v1/chat/completions", hi), 401, "authentication_error", "invalid_api_key");
    expect(none.message).toBe("No API key was sent. Pass your gateway key in the header 'Authorization: Bearer sk-...'.");
    const wrong = await expectError(
      await post(gw.url, "/v1/chat/completions", hi, bearer("sk-not-a-real-key")),
      401,
      "authentication_error",
      "invalid_api_key",
    );
    expect(wrong.message).toBe("Invalid API key. Pass a valid key as 'Authorization: Bearer sk-...'.");
    const models = await expectError(await fetch(`${gw.url}/v1/models`), 401, "authentication_error", "invalid_api_key");
    expect(models.message).toContain("No API key was sent");
  });

  test("a bare model id resolves to its one usable vendor/model (chat, Responses, GET /v1/models/{id}); the answer names the full id", async () => {
    const chat = await post(gw.url, "/v1/chat/completions", { ...hi, model: "gpt-4o-mini" }, bearer(key));
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { model: string }).model).toBe("openai/gpt-4o-mini");
    expect(fake.requests.at(-1)!.body.model).toBe("gpt-4o-mini");
    const responses = await post(gw.url, "/v1/responses", { model: "gpt-4o-mini", input: "hi", store: false }, bearer(key));
    expect(responses.status).toBe(200);
    expect(((await responses.json()) as { model: string }).model).toBe("openai/gpt-4o-mini");
    const one = await fetch(`${gw.url}/v1/models/gpt-4o-mini`, { headers: bearer(key) });
    expect(one.status).toBe(200);
    expect(((await one.json()) as { id: string }).id).toBe("openai/gpt-4o-mini");
    const unknown = await expectError(
      await post(gw.url, "/v1/chat/completions", { ...hi, model: "no-such-model" }, bearer(key)),
      404,
      "not_found",
      "model_not_found",
    );
    expect(unknown.message).not.toContain("Did you mean");
    const aliased = await post(gw.url, "/v1/chat/completions", { ...hi, model: "mini" }, bearer(key));
    expect(aliased.status).toBe(200);
    expect(fake.requests.at(-1)!.body.model).toBe("gpt-4o-mini");
  });

  test("a bare id naming several usable models: 404 model_not_found listing them, on chat, embeddings and GET /v1/models/{id}", async () => {
    const twin = (vendor: string, kind?: string) => ({
      id: `${vendor}/twin`,
      pricing: { prompt: "1", completion: "1" },
      ...(kind ? { kind } : {}),
      endpoints: [{ provider: "openai", model: "twin" }],
    });
    const models = [twin("openai"), twin("acme"), { ...twin("openai", "embeddings"), id: "openai/vec" }, { ...twin("acme", "embeddings"), id: "acme/vec" }];
    const two = await startGateway(openaiConfig(fake.url, { models }));
    try {
      const twoKey = await two.createKey();
      await two.addCredits("1");
      const expected = "The model 'twin' is ambiguous: it names 'acme/twin', 'openai/twin'. Send the full vendor/model id.";
      const chat = await expectError(
        await post(two.url, "/v1/chat/completions", { ...hi, model: "twin" }, bearer(twoKey)),
        404,
        "not_found",
        "model_not_found",
      );
      expect(chat.message).toBe(expected);
      const vec = await expectError(await post(two.url, "/v1/embeddings", { model: "vec", input: "a" }, bearer(twoKey)), 404, "not_found", "model_not_found");
      expect(vec.message).toBe(expected.replaceAll("twin", "vec"));
      const one = await expectError(await fetch(`${two.url}/v1/models/twin`, { headers: bearer(twoKey) }), 404, "not_found", "model_not_found");
      expect(one.message).toBe(expected);
    } finally {
      await two.close();
    }
  });
});
