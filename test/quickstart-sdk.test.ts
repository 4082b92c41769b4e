/**
 * The README quick start's `openai` client block, pasted as it stands into bash in the clone
 * (where `npm ci` installed `openai`), against a running gateway whose OpenAI provider is a local
 * fake speaking OpenAI's chat wire format (helpers/openai-wire.ts): it prints the plain answer
 * and the streamed one, each on a line of its own, then how many models the key can use. What
 * the test changes: port 8787 becomes the gateway's.
 */
import { execa } from "execa";
import { expect, test } from "vitest";
import { tempDir } from "./helpers/cli.js";
import { useGateway } from "./helpers/gateway.js";
import { blockWith } from "./helpers/markdown-shell.js";
import { completion, stream } from "./helpers/openai-wire.js";

const h = useGateway((fakeUrl) => ({
  server: { compat: "openai" },
  providers: { openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-quickstart-sdk-0000" } },
}));

test("the quick start's client block prints the plain answer, then the streamed one, then the model count, one line each", async () => {
  h.fake.queue(completion("Hello! How can I help you today?"), stream(["Hi", " there,", " streamed."]));
  const port = new URL(h.gw.url).port;
  const r = await execa("bash", ["-e", "-c", blockWith("README.md", 'from "openai"').replaceAll("8787", port)], {
    env: { PATH: process.env.PATH ?? "", HOME: tempDir(), GATEWAY_KEY: h.key },
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  const models = (await (await fetch(`${h.gw.url}/v1/models`, { headers: { authorization: `Bearer ${h.key}` } })).json()) as { data: unknown[] };
  expect(models.data.length).toBeGreaterThan(0);
  expect(r.stdout).toBe(`Hello! How can I help you today?\nHi there, streamed.\n${models.data.length} models`);
  expect(h.fake.requests.map((q) => [q.path, q.body.model, q.body.stream ?? false])).toEqual([
    ["/v1/chat/completions", "gpt-4o-mini", false],
    ["/v1/chat/completions", "gpt-4o-mini", true],
  ]);
}, 90_000);
