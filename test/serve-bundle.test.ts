/**
 * The serve bundle (docs/architecture.md, "Memory and start-up"; docs/cli.md): `npm run build`
 * bundles the compiled CLI into dist/src/bundle/, and bin/gateway.js runs it only when it is not
 * older than dist/src/cli/main.js, so a `tsc` run alone never leaves an older bundle running.
 */
import { copyFileSync, mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { assertBuilt, BIN, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { bearer, post } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";

describe("bin/gateway.js picks the bundle or the compiled CLI", () => {
  /** A copy of bin/ beside two stand-in entries that print which of them ran. */
  function layout(bundle: "newer" | "older" | "none"): string {
    const d = tempDir();
    mkdirSync(join(d, "bin"));
    copyFileSync(BIN, join(d, "bin", "gateway.js"));
    writeFileSync(join(d, "package.json"), '{"type":"module"}');
    const entry = (dir: string, word: string) => {
      mkdirSync(join(d, dir), { recursive: true });
      writeFileSync(join(d, dir, "main.js"), `export async function main() { console.log(${JSON.stringify(word)}); }\n`);
      return join(d, dir, "main.js");
    };
    const compiled = entry("dist/src/cli", "compiled");
    if (bundle === "none") return d;
    const bundled = entry("dist/src/bundle", "bundle");
    const at = statSync(compiled).mtime.getTime() / 1000;
    utimesSync(bundled, at + (bundle === "newer" ? 5 : -5), at + (bundle === "newer" ? 5 : -5));
    return d;
  }
  const run = async (d: string) => (await execa("node", [join(d, "bin", "gateway.js")])).stdout.trim();

  test("a bundle newer than the compiled CLI runs; an older one does not; without one the compiled CLI runs", async () => {
    expect(await run(layout("newer"))).toBe("bundle");
    expect(await run(layout("older"))).toBe("compiled");
    expect(await run(layout("none"))).toBe("compiled");
  });
});

describe("the built bundle serves", () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    assertBuilt();
    fake = await startFakeUpstream();
  });
  afterAll(async () => {
    await fake?.close();
  });

  test("npm run build made it, and through it serve starts with every built-in plugin, answers, bills, and takes a third-party plugin's errors as its own", async () => {
    const bundle = resolve("dist/src/bundle/main.js");
    expect(statSync(bundle).mtimeMs).toBeGreaterThanOrEqual(statSync(resolve("dist/src/cli/main.js")).mtimeMs);
    const d = tempDir();
    writeFileSync(
      join(d, "gateway.config.yaml"),
      [
        "providers:",
        "  openai: { baseUrl: ${FAKE_URL}/v1, apiKey: sk-upstream-bundle }",
        "  picky: { plugin: ./picky-plugin.mjs, apiKey: x }",
        "models:",
        "  - id: openai/gpt-4o-mini",
        "    pricing: { prompt: 1, completion: 2 }",
        "    endpoints: [{ provider: openai, model: gpt-4o-mini }]",
        "  - id: acme/picky",
        "    pricing: { prompt: 0, completion: 0 }",
        "    endpoints: [{ provider: picky, model: p }]",
      ].join("\n"),
    );
    // A third-party plugin on the gateway's own (unbundled) contract: its errors are the core's.
    writeFileSync(
      join(d, "picky-plugin.mjs"),
      `import { invalidRequest } from ${JSON.stringify(pathToFileURL(resolve("dist/src/plugin/contract.js")).href)};
export default { name: "picky", defaults: { baseUrl: "http://127.0.0.1:9" },
  chat: { request() { throw invalidRequest("picky: this model takes no messages"); }, response() { return { choices: [] }; }, async *stream() {} } };
`,
    );
    const env = { FAKE_URL: fake.url };
    const key = (await gateway(["keys", "create", "--name", "app", "--json"], { cwd: d, env })).json.key as string;
    expect((await gateway(["credits", "add", "10", "--json"], { cwd: d, env })).exitCode).toBe(0);
    // Every BYOK plugin gets an implicit instance at start: each provider chunk is loaded.
    const { url, proc } = await serve([], { cwd: d, env });
    try {
      fake.queue(completion("hello"));
      const res = await post(url, "/v1/chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, bearer(key));
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("hello");
      expect(Number(res.headers.get("x-gateway-cost"))).toBeGreaterThan(0);
      const picky = await post(url, "/v1/chat/completions", { model: "acme/picky", messages: [{ role: "user", content: "hi" }] }, bearer(key));
      expect(picky.status).toBe(400);
      expect(((await picky.json()) as { error: { message: string } }).error.message).toBe("picky: this model takes no messages");
      const byok = await gateway(["byok", "list", "--json"], { cwd: d, env });
      expect(byok.exitCode).toBe(0);
    } finally {
      proc.kill("SIGTERM");
      await proc.catch(() => undefined);
    }
    expect((await gateway(["usage", "--json"], { cwd: d, env })).json.requests).toBe(2); // the one answered and the one the plugin refused
  }, 60_000); // five CLI starts and a serve
});
