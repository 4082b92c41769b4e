/**
 * Config problems name their file and line (src/config/diagnostics.ts), these three included:
 * a price with a 10th decimal, a database path that is a directory, a config that is not valid
 * JSON. `gateway serve` runs as an operator runs it and must refuse with one line each.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, gateway, tempDir as newDir } from "./helpers/cli.js";

const dirs: string[] = [];
const tempDir = () => (dirs.push(newDir()), dirs.at(-1)!);
beforeAll(() => assertBuilt());
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function serveWith(name: string, content: string) {
  const d = tempDir();
  writeFileSync(join(d, name), content);
  return { d, ...(await gateway(["serve", "--port", "0"], { cwd: d })) };
}

test("a price with 10 decimals: file:line", async () => {
  const { exitCode, stderr } = await serveWith(
    "gateway.config.yaml",
    [
      "providers:",
      "  openai: { apiKey: sk-x }",
      "models:",
      "  - id: a/b",
      '    pricing: { prompt: "0.1234567891", completion: 1 }',
      "    endpoints: [{ provider: openai, model: m }]",
    ].join("\n"),
  );
  expect(exitCode).toBe(2);
  expect(stderr).toMatch(/gateway\.config\.yaml:5: models\.0\.pricing\.prompt: expected at most 9 decimals/);
});

test("a database path that is a directory: file:line", async () => {
  const d = tempDir();
  mkdirSync(join(d, "data"));
  writeFileSync(join(d, "gateway.config.yaml"), "server: { port: 0 }\ndatabase: ./data\n");
  const { exitCode, stderr } = await gateway(["serve"], { cwd: d });
  expect(exitCode).toBe(2);
  expect(stderr).toMatch(/gateway\.config\.yaml:2: database: .*data is a directory/);
});

test("invalid JSON config: file:line, one line", async () => {
  const { exitCode, stderr } = await serveWith("gateway.config.json", '{\n  "server": {\n    ,\n  }\n}\n');
  expect(exitCode).toBe(2);
  expect(stderr.trim()).toMatch(/gateway\.config\.json:3: invalid JSON: /);
  expect(stderr.trim().split("\n")).toHaveLength(1);
});
