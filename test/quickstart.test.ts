/**
 * The README quick start for a person with no provider account, pasted line by line into a
 * clean shell: a local OpenAI-compatible server (here a fake speaking Ollama's OpenAI-compatible
 * API, https://github.com/ollama/ollama/blob/main/docs/openai.md: GET /v1/models and
 * POST /v1/chat/completions) reaches a first answer. The lines are read from README.md, with only
 * `npx gateway` (run in the clone) pointed at the built bin, the server's address at the
 * fake, and the port at a free one.
 */
import { readFileSync } from "node:fs";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, BIN, freePort, tempDir } from "./helpers/cli.js";
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

test("the local-server quick start, pasted into a clean shell, reaches a first answer", async () => {
  const port = await freePort();
  const script = quickstartLines().map((line) =>
    line
      .replaceAll("npx gateway", `node ${JSON.stringify(BIN)}`)
      .replaceAll("http://localhost:11434/v1", `${fake.url}/v1`)
      .replaceAll("8787", String(port))
      .replace(/ &$/, " --port " + port + " & SERVE=$!"),
  );
  script.push("kill $SERVE; wait $SERVE");
  const dir = tempDir();
  // A clean shell: no provider keys, no GATEWAY_* variables; PATH and HOME only.
  const r = await execa("bash", ["-e", "-c", script.join("\n")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  const answer = JSON.parse(r.stdout.split("\n").find((l) => l.startsWith('{"id"'))!);
  expect(answer.choices[0].message.content).toBe("Hello! How can I help you today?");
  expect(answer.model).toBe("local/llama3.2");
  // The gateway asked the local server for its models (init's check, models sync), then for the answer.
  expect(fake.requests.map((q) => `${q.method} ${q.path}`)).toEqual(["GET /v1/models", "GET /v1/models", "POST /v1/chat/completions"]);
  expect(fake.requests.at(-1)!.body.model).toBe("llama3.2");
});
