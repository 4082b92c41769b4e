/**
 * The README quick start for a person with no provider account, pasted line by line into a
 * clean shell, twice: a local OpenAI-compatible server (here a fake speaking Ollama's
 * OpenAI-compatible API, https://github.com/ollama/ollama/blob/main/docs/openai.md: GET /v1/models
 * and POST /v1/chat/completions) reaches an answer each time, and a paste whose key could not be
 * made stops before its curl. The lines are read from README.md, with only `node bin/gateway.js`
 * (run in the clone) pointed at the clone's bin by its full path, the server's address at the
 * fake, and the port at a free one.
 */
import { readFileSync } from "node:fs";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, BIN, freePort, gateway, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { completion } from "./helpers/openai-wire.js";

/** The README's local-server quick start: the ```sh block that sets up `--provider local`, read from README.md itself. */
function quickstartLines(): string[] {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const block = readme
    .split("```sh\n")
    .map((b) => b.split("\n```")[0]!)
    .find((b) => b.includes("--provider local --base-url"));
  if (!block) throw new Error("README.md has no quick-start block with `--provider local`");
  return block.split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
}

function ollama(req: Recorded): Reply {
  if (req.method === "GET" && req.path === "/v1/models") {
    return { json: { object: "list", data: [{ id: "llama3.2", object: "model", created: 1, owned_by: "library" }] } };
  }
  return completion("Hello! How can I help you today?");
}

let fake: FakeUpstream;
beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream(ollama);
});
afterAll(() => fake.close());

/** The block as a script for one shell, its `serve &` on a free port; every server it started is stopped at the end. */
async function pastedTwice(prelude: string[] = []): Promise<{ dir: string; exitCode: number | undefined; stdout: string; stderr: string }> {
  const port = await freePort();
  const block = quickstartLines().map((line) =>
    line
      .replaceAll("node bin/gateway.js", `node ${JSON.stringify(BIN)}`)
      .replaceAll("http://localhost:11434/v1", `${fake.url}/v1`)
      .replaceAll("8787", String(port))
      .replace(/ &$/, ` --port ${port} & SERVES="$SERVES $!"`),
  );
  const dir = tempDir();
  // A clean shell: no provider keys, no GATEWAY_* variables; PATH and HOME only. The trap stops
  // the servers however the script ends (the second paste's server has already refused).
  const script = ["trap 'kill $SERVES 2>/dev/null; wait' EXIT", ...prelude, ...block, ...block];
  const r = await execa("bash", ["-e", "-c", script.join("\n")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    extendEnv: false,
    reject: false,
    timeout: 90_000,
  });
  return { dir, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

const posts = () => fake.requests.filter((q) => q.method === "POST").length;

test("the local-server quick start, pasted twice into one clean shell, answers both times", async () => {
  const before = fake.requests.length;
  const r = await pastedTwice();
  expect(r.exitCode, r.stderr).toBe(0);
  const answers = r.stdout
    .split("\n")
    .filter((l) => l.startsWith('{"id"'))
    .map((l) => JSON.parse(l));
  expect(answers).toHaveLength(2);
  for (const answer of answers) {
    expect(answer.choices[0].message.content).toBe("Hello! How can I help you today?");
    expect(answer.model).toBe("local/llama3.2");
  }
  // First paste: init's check, models sync, the answer; the second keeps the config: models sync, the answer.
  const seen = fake.requests.slice(before).map((q) => `${q.method} ${q.path}`);
  expect(seen).toEqual(["GET /v1/models", "GET /v1/models", "POST /v1/chat/completions", "GET /v1/models", "POST /v1/chat/completions"]);
  expect(fake.requests.at(-1)!.body.model).toBe("llama3.2");
  // Each paste made its own key (the second paste's `serve &` finds the first one running).
  const keys = await gateway(["--json", "keys", "list"], { cwd: r.dir });
  expect(keys.json.map((k: { name: string }) => k.name)).toEqual([expect.stringMatching(/^my-app-\d+$/), expect.stringMatching(/^my-app-\d+$/)]);
  expect(new Set(keys.json.map((k: { name: string }) => k.name)).size).toBe(2);
}, 120_000);

test("a paste whose key cannot be made stops before its curl, saying why", async () => {
  const before = posts();
  // Both pastes in the same second: the key name repeats, so the second `keys create` fails.
  const r = await pastedTwice(["date() { echo 1700000000; }"]);
  expect(r.exitCode).not.toBe(0);
  expect(r.stderr).toContain("error: account 'default' already has a key named 'my-app-1700000000'");
  expect(r.stderr).toContain("GATEWAY_KEY: is empty: keys create failed, see its error above");
  expect(posts() - before).toBe(1); // the first paste's answer only
}, 120_000);
