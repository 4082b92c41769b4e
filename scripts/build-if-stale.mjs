#!/usr/bin/env node
// `npm test` runs this before vitest: it builds (`npm run build`) only when dist/ is missing or
// older than a file it is built from, so the build `npm ci` just ran (`prepare`) is not run
// again (docs/cli.md, "Starting the CLI and building").
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const SOURCES = ["src", "providers", "bench", "dashboard", "scripts/bundle.mjs", "package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"];
const OUTPUTS = ["dist/src/cli/main.js", "dist/src/bundle/main.js", "dist/bundled-catalog.json", "dist/dashboard/index.html"];

/** The newest modification time of a file or of any file under a folder (node_modules skipped). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted file changes its folder's time
  for (const entry of readdirSync(path)) if (entry !== "node_modules") latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const builtAt = Math.min(...OUTPUTS.map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)));
const changedAt = Math.max(...SOURCES.map(newest));
if (builtAt > changedAt) {
  console.log("build: dist/ is newer than every source file, not rebuilt (npm run build forces it)");
} else {
  const r = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
