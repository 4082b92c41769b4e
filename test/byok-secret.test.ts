/**
 * The BYOK secret changes under stored keys (issue 10, item 11): the gateway says so once at
 * start, and a request that needs such a key gets a 400 in the error shape telling the account
 * to set it again (never a 500, never a stack); setting it again makes it work without a restart.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { encrypt, loadSecret } from "../src/access/byok.js";
import { parseConfig } from "../src/config/config.js";
import { startServer } from "../src/app/serve.js";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway } from "./helpers/gateway.js";
import { bearer, expectError } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { recordSecret } from "./helpers/secrets.js";

const MODEL = "openai/gpt-4o-mini";
const BYOK_KEY = "sk-byok-account-key-7788";
let fake: FakeUpstream;

beforeAll(async () => {
  fake = await startFakeUpstream(() => completion("ok"));
});
afterAll(async () => {
  await fake?.close();
});

const chat = (url: string, key: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
  });

/** A 400 that tells the account what to do, and nothing of the gateway's insides. */
async function expectUnreadable(res: Response): Promise<void> {
  const err = await expectError(res, 400, "invalid_request_error", "byok_key_unreadable");
  expect(err.message).toContain("provider openai cannot be read");
  expect(err.message).toContain("gateway byok set");
  expect(err.message).not.toMatch(/\n\s+at |Unsupported state|authenticate data/);
}

test("restart with another GATEWAY_SECRET on the same database: 400 byok_key_unreadable, models list still answers", async () => {
  // openai has no platform key here: only the account's own key can serve the model.
  const raw = {
    providers: { openai: { baseUrl: `${fake.url}/v1` } },
    models: [{ id: MODEL, pricing: { prompt: "0.15", completion: "0.6" }, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
  };
  const first = await startGateway(raw, { GATEWAY_SECRET: "the-first-secret" });
  const key = await first.createKey({ account: "acme" });
  const secret = loadSecret(first.db, { GATEWAY_SECRET: "the-first-secret" });
  await first.store.setByok({ account: "acme", provider: "openai", secret: encrypt(secret, "acme", "openai", BYOK_KEY), last4: "7788", updatedAt: Date.now() });
  expect((await chat(first.url, key)).status).toBe(200);
  expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${BYOK_KEY}`);
  await first.server.close();

  const second = await startServer({ config: parseConfig({ ...raw, database: first.db }) }, { port: 0, env: { GATEWAY_SECRET: "another-secret" } });
  try {
    expect(await second.gateway.byok.unreadable()).toEqual([{ account: "acme", provider: "openai" }]);
    const before = fake.requests.length;
    await expectUnreadable(await chat(second.url, key));
    expect(fake.requests.length).toBe(before);
    const models = await fetch(`${second.url}/v1/models`, { headers: bearer(key) });
    expect(models.status).toBe(200);
    expect(((await models.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id)).not.toContain(MODEL);
  } finally {
    await second.close();
    await first.close();
  }
});

test("gateway serve says on stderr, in one line, how many BYOK keys and webhook secrets it cannot read; `byok set` again fixes the key live", async () => {
  assertBuilt();
  const dir = tempDir();
  writeFileSync(
    join(dir, "gateway.config.yaml"),
    [
      "providers:",
      "  openai: { baseUrl: '${FAKE_URL}/v1' }",
      "models:",
      `  - { id: ${MODEL}, pricing: { prompt: 0.15, completion: '0.6' }, endpoints: [{ provider: openai, model: gpt-4o-mini }] }`,
    ].join("\n"),
  );
  const old = { FAKE_URL: fake.url, GATEWAY_SECRET: "old-secret" };
  const current = { FAKE_URL: fake.url, GATEWAY_SECRET: "new-secret" };
  const setKey = (env: Record<string, string>) =>
    gateway(["byok", "set", "openai", "--key-stdin", "--account", "acme"], { cwd: dir, env, input: `${BYOK_KEY}\n` });
  const key = (await gateway(["keys", "create", "--name", "acme-app", "--account", "acme", "--create", "--json"], { cwd: dir, env: old })).json.key as string;
  expect((await setKey(old)).exitCode).toBe(0);
  const hook = await gateway(["alerts", "add", "--url", "http://127.0.0.1:9/hook", "--account", "acme", "--json"], { cwd: dir, env: old });
  expect(hook.exitCode).toBe(0);
  recordSecret(hook.json.secret);

  const { url, proc } = await serve([], { cwd: dir, env: current });
  try {
    await expectUnreadable(await chat(url, key));

    expect((await setKey(current)).exitCode).toBe(0);
    // The running server notices the other connection's write within a second (gateway.ts).
    await expect.poll(async () => (await chat(url, key)).status, { timeout: 5000, interval: 200 }).toBe(200);
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${BYOK_KEY}`);
  } finally {
    proc.kill("SIGTERM");
  }
  // execa hands the whole stderr over at exit; the warning was written before the ready line.
  const stderr = String((await proc).stderr);
  const lines = stderr.split("\n").filter((l) => l.includes("BYOK"));
  expect(lines).toHaveLength(1);
  // One line for every sealed value it cannot open, by kind and row, never a value (docs/cli.md).
  expect(lines[0]).toBe(
    `warning: 1 BYOK key (acme/openai) and 1 alert webhook secret (${hook.json.id}) stored cannot be decrypted with the current secret ` +
      "(GATEWAY_SECRET, or the .secret file beside the database, is not the one they were sealed with): requests that need a BYOK key " +
      "get 400 byok_key_unreadable until it is set again ('gateway byok set'); alerts to such a webhook end failed until it is added again ('gateway alerts add')",
  );
  expect(stderr).not.toContain(hook.json.secret);
  expect(stderr).not.toContain(BYOK_KEY);
  expect(stderr).not.toMatch(/\n\s+at /);
});
