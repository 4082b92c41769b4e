#!/usr/bin/env node
// `npm run build` runs this after tsc: the CLI compiled in dist/src/ bundled into
// dist/src/bundle/ (main.js and its chunks), which bin/gateway.js runs when it is at least as
// new as dist/src/cli/main.js. A start then reads a few large files instead of ~470 small
// ones: `serve` starts with about a quarter less CPU and ~5 MB less RSS (docs/architecture.md,
// "Memory and start-up"). Each command and each provider plugin stays a chunk of its own,
// loaded when used. Packages in CommonJS or with native parts (better-sqlite3, pino, undici,
// ...) stay external, as Node loads them unbundled; only our code and the ESM-only packages
// of the request path are bundled. The folder sits at the depth of dist/src/<layer>/, so the
// paths modules compute from import.meta.url (the bundled catalog, the dashboard) hold.
// Without rolldown (vite's bundler, a dev dependency) nothing is bundled and bin/ runs dist/src/.
import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";

const OUT = "dist/src/bundle";
/** Bundled packages: ESM-only, no native parts, no files read beside themselves. */
const BUNDLED = /^(zod|h3|srvx|rou3|cookie-es)(\/|$)/;
/**
 * The error classes the core tells apart with instanceof stay files of their own, shared with
 * anything unbundled: a third-party plugin importing dist/src/plugin/contract.js throws the
 * same GatewayError and UpstreamFailure the bundled core catches.
 */
const SHARED = new Set(["dist/src/core/errors.js", "dist/src/plugin/failure.js"].map((f) => resolve(f)));
const external = (id, importer) => {
  if (id.startsWith(".") && importer) return SHARED.has(resolve(dirname(importer), id));
  if (id.startsWith("/")) return SHARED.has(id);
  return !id.startsWith("\0") && !BUNDLED.test(id);
};

let rolldown;
try {
  ({ rolldown } = await import("rolldown"));
} catch {
  console.log("bundle: rolldown is not installed, dist/src/ runs unbundled");
  process.exit(0);
}

rmSync(OUT, { recursive: true, force: true });
const build = await rolldown({
  input: { main: "dist/src/cli/main.js" },
  platform: "node",
  external,
  logLevel: "warn",
});
await build.write({ dir: OUT, format: "esm", chunkFileNames: "[name]-[hash].js" });
await build.close();
