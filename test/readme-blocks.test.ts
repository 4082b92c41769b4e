/**
 * The README's blocks that follow the quick start, pasted into one clean shell in a clone-like
 * folder where the quick start ran (a config, credits, `serve &`): the response cache (enable
 * it, restart serve, a miss then a hit), the cost header, usage by tag, the dashboard's users and
 * members, and alerts. The OpenAI provider is a local fake speaking OpenAI's chat wire format.
 * What the test changes, and only that: `node bin/gateway.js` is this clone's bin, port 8787 a
 * free one, and the alerts' webhook URL the fake's (no delivery leaves the machine).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { stringify } from "yaml";
import { assertBuilt, BIN, freePort, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { blockWith } from "./helpers/markdown-shell.js";
import { completion } from "./helpers/openai-wire.js";

let fake: FakeUpstream;
beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream((req) => (req.method === "POST" ? completion("Hello from the fake.") : { json: {} }));
});
afterAll(() => fake.close());

test("the cache, cost, usage-by-tag, dashboard-users and alerts blocks work pasted after the quick start", async () => {
  const dir = tempDir();
  const port = await freePort();
  const config = {
    server: { port, compat: "openai" },
    database: "./gateway.db",
    providers: { openai: { baseUrl: `${fake.url}/v1`, apiKey: "sk-readme-blocks-0000" } },
  };
  writeFileSync(join(dir, "gateway.config.yaml"), stringify(config));
  const pasted = ["x-gateway-cache", '"usage":{"include":true}', "X-Gateway-Tags", "users add alice@example.com", "alerts add --url"].map((m) =>
    blockWith("README.md", m)
      .replaceAll("node bin/gateway.js", `node ${JSON.stringify(BIN)}`)
      .replaceAll("8787", String(port))
      .replaceAll("https://hooks.example.com/gateway", `${fake.url}/hook`)
      .replace(/ &(\s+#.*)?$/gm, ` & SERVES="$SERVES $!"`),
  );
  // Where the quick start left the shell: credits, a key, serve running (the trap stops every server).
  const quickstart = [
    "trap 'kill $SERVES 2>/dev/null; wait' EXIT",
    `node ${JSON.stringify(BIN)} credits add 10`,
    `node ${JSON.stringify(BIN)} serve --log-level warn & SERVES="$!"`,
    `until curl -s -o /dev/null http://127.0.0.1:${port}/v1/health/providers; do sleep 0.2; done`,
  ];
  const before = fake.requests.length;
  const r = await execa("bash", ["-e", "-c", [...quickstart, ...pasted].join("\n")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    extendEnv: false,
    reject: false,
    timeout: 120_000,
  });
  expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
  const lines = r.stdout.split("\n");
  // The cache block's two answers (the cost example's headers, printed after, say bypass: not temperature 0).
  const cache = lines.filter((l) => /^x-gateway-cache:/i.test(l)).map((l) => l.trim().toLowerCase());
  expect(cache.slice(0, 2)).toEqual(["x-gateway-cache: miss", "x-gateway-cache: hit"]);
  expect(r.stdout).toMatch(/^x-gateway-cost: 0\.\d+\r?$/im);
  expect(r.stdout).toMatch(/"group": "search"/);
  expect(r.stdout).toContain("Sign-in link for 'alice@example.com'");
  expect(r.stdout).toMatch(/Added webhook wh_\w+: the alerts of 'acme' go to/);
  // The hit never reached the provider: the miss, the cost example, the tagged request.
  expect(fake.requests.slice(before).filter((q) => q.path === "/v1/chat/completions")).toHaveLength(3);
}, 150_000);
