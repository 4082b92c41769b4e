#!/usr/bin/env node
// The `gateway` executable: the compiled CLI in dist/ (built by `npm run build`, which
// `npm ci` runs through `prepare`).
import { main } from "../dist/src/cli/main.js";

await main();
