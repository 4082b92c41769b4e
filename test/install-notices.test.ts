/**
 * What an install says while it works (README, "Set up"): npm, run with the clone's `.npmrc`,
 * shows a dependency's install script output as it runs (better-sqlite3 compiling from source
 * offline takes minutes), and `npm test`'s first step announces the agent clients' download
 * (about 1.3 GB) before npm starts, once. Both run real npm or the real script in a folder of
 * their own: a local package tarball for the first, a stand-in `npm` on PATH for the second (the
 * download itself is not this test's subject).
 */
import { execa } from "execa";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { tempDir } from "./helpers/cli.js";

test("with the clone's .npmrc, npm shows a dependency's install script output as it runs", async () => {
  const dir = tempDir();
  const env = { PATH: process.env.PATH ?? "", HOME: dir, npm_config_cache: join(dir, "npm-cache") };
  const dep = join(dir, "slow-native");
  mkdirSync(dep);
  // A dependency whose install script talks, as node-gyp does while it compiles. The line it
  // prints is not its own text (npm quotes that in a warning): the shell expands the name.
  const install = "echo compiling $npm_package_name from source";
  writeFileSync(join(dep, "package.json"), JSON.stringify({ name: "slow-native", version: "1.0.0", scripts: { install } }));
  await execa("npm", ["pack", "--silent"], { cwd: dep, env, extendEnv: false });
  const app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "app", version: "1.0.0", dependencies: { "slow-native": "file:../slow-native/slow-native-1.0.0.tgz" } }),
  );
  copyFileSync(".npmrc", join(app, ".npmrc"));
  const r = await execa("npm", ["install", "--offline", "--no-audit", "--no-fund"], { cwd: app, env, extendEnv: false, all: true, timeout: 120_000 });
  expect(r.all).toContain("compiling slow-native from source");
}, 150_000);

test("npm test's first step announces the agent clients' download before npm starts, and only the first time", async () => {
  const root = tempDir();
  mkdirSync(join(root, "scripts"));
  mkdirSync(join(root, "test", "agents"), { recursive: true });
  copyFileSync("scripts/agent-clients.mjs", join(root, "scripts", "agent-clients.mjs"));
  copyFileSync("test/agents/clients.json", join(root, "test", "agents", "clients.json"));
  const bin = join(root, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "npm"), '#!/bin/sh\necho "npm $*"\n');
  chmodSync(join(bin, "npm"), 0o755);
  const run = () =>
    execa("node", [join(root, "scripts", "agent-clients.mjs")], { env: { PATH: `${bin}:${process.env.PATH}` }, extendEnv: false, timeout: 30_000 });

  const first = (await run()).stdout.split("\n");
  expect(first[0]).toMatch(/^installing the coding-agent clients .* into node_modules\/\.agent-clients, once \(about [\d.]+ GB, ~\d+ s\)/);
  const pinned = JSON.parse(readFileSync("test/agents/clients.json", "utf8")) as Record<string, string>;
  for (const [name, version] of Object.entries(pinned)) if (name !== "//") expect(first[0]).toContain(`${name}@${version}`);
  expect(first[1]).toMatch(new RegExp(`^npm install .*--prefix ${join(root, "node_modules", ".agent-clients")} `));
  expect((await run()).stdout).toBe(""); // installed: nothing to say, npm not run
});
