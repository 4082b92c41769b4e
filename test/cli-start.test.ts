/**
 * The README's way of starting the CLI (docs/cli.md, "Starting the CLI and building"): it answers
 * at once without building, and a first start interrupted by Ctrl-C does not break the next.
 * `npx gateway` is not it: in a checkout npm installs the checkout into its cache first.
 */
import { readFileSync, statSync } from "node:fs";
import { execa } from "execa";
import { expect, test } from "vitest";
import { assertBuilt, BIN, freePort, serve, tempDir } from "./helpers/cli.js";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const shellBlocks = () => [...README.matchAll(/```(?:sh|bash)\n([\s\S]*?)\n```/g)].map((m) => m[1]!);

/** `node bin/gateway.js`: what the Set up block runs after `npm ci && `. */
function readmeCli(): string[] {
  const setUp = shellBlocks().find((b) => b.startsWith("npm ci && ") && b.includes(" serve"));
  if (!setUp) throw new Error("README.md has no Set up block `npm ci && ... serve`");
  return setUp
    .slice("npm ci && ".length)
    .replace(/ serve$/, "")
    .split(" ");
}

test("every README shell block starts the CLI the way Set up does, never through npx", () => {
  expect(readmeCli()).toEqual(["node", "bin/gateway.js"]);
  for (const block of shellBlocks()) expect(block).not.toMatch(/\bnpx gateway\b/);
});

test("the README's command answers --version and --help at once, without building", async () => {
  assertBuilt();
  const [node, bin] = readmeCli();
  const builtAt = statSync("dist/src/cli/main.js").mtimeMs;
  // Each well under npx's first run (14 s of silence on an idle machine), even on a loaded one.
  const version = await execa(node!, [bin!, "--version"], { reject: false, timeout: 8_000 });
  const help = await execa(node!, [bin!, "--help"], { reject: false, timeout: 8_000 });
  expect(version.exitCode).toBe(0);
  expect(version.stdout).toBe(JSON.parse(readFileSync("package.json", "utf8")).version);
  expect(help.exitCode).toBe(0);
  expect(help.stdout).toMatch(/^\s+serve\b/m);
  expect(statSync("dist/src/cli/main.js").mtimeMs).toBe(builtAt);
});

test("a first start interrupted by Ctrl-C leaves the next start working", async () => {
  assertBuilt();
  const dir = tempDir();
  const port = await freePort();
  const first = execa("node", [BIN, "serve", "--port", String(port)], { cwd: dir, reject: false, env: { PATH: process.env.PATH ?? "" }, extendEnv: false });
  await new Promise((r) => setTimeout(r, 150)); // in the middle of starting: loading, migrating
  first.kill("SIGINT");
  const ended = await first;
  expect(ended.exitCode === 0 || ended.signal === "SIGINT" || ended.exitCode === 130, `${ended.exitCode} ${ended.signal}`).toBe(true);
  const version = await execa("node", [BIN, "--version"], { cwd: dir, reject: false });
  expect(version.exitCode).toBe(0);
  const again = await serve([], { cwd: dir });
  const health = await fetch(`${again.url}/v1/health/providers`);
  expect(health.status).toBe(200);
  again.proc.kill("SIGTERM");
  expect((await again.proc).exitCode).toBe(0);
}, 60_000);

test("npm test's build step builds a stale dist/ and then leaves it alone", async () => {
  // Stale (a source changed since) it builds; either way, right after, dist/ is fresh.
  const first = await execa("node", ["scripts/build-if-stale.mjs"], { reject: false, timeout: 280_000 });
  expect(first.exitCode, first.stderr).toBe(0);
  const builtAt = statSync("dist/src/cli/main.js").mtimeMs;
  const second = await execa("node", ["scripts/build-if-stale.mjs"], { reject: false });
  expect(second.exitCode).toBe(0);
  expect(second.stdout).toBe("build: dist/ is newer than every source file, not rebuilt (npm run build forces it)");
  expect(statSync("dist/src/cli/main.js").mtimeMs).toBe(builtAt);
}, 300_000);
