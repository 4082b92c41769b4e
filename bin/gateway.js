#!/usr/bin/env node
// The `gateway` executable: the compiled CLI in dist/ (built by `npm run build`, which
// `npm ci` runs through `prepare`), bundled (scripts/bundle.mjs) when the bundle is at least as
// new as the compiled CLI: a tsc run alone leaves the bundle older, and then dist/src/ runs.
import { statSync } from "node:fs";

const mtime = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const bundled = mtime("../dist/src/bundle/main.js") >= mtime("../dist/src/cli/main.js");
const { main } = await import(bundled ? "../dist/src/bundle/main.js" : "../dist/src/cli/main.js");

await main();
