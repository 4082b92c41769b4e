/**
 * `npm run build`'s last step: the bundled catalog computed from its data modules
 * (catalog/bundled-sources.ts) into dist/bundled-catalog.json, which `gateway serve` reads (catalog/bundled.ts).
 */
import { writeFileSync } from "node:fs";
import { BUNDLED_FILE } from "./bundled.js";
import { buildBundled } from "./bundled-sources.js";

const entries = await buildBundled();
writeFileSync(BUNDLED_FILE, `${JSON.stringify(entries)}\n`);
process.stdout.write(`bundled catalog: ${entries.length} entries -> ${BUNDLED_FILE}\n`);
