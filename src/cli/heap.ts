/**
 * V8 heap sizing for a long-running server (docs/architecture.md, Memory), set from inside
 * the process (the flag is read at each GC, so it works after start): loading the modules
 * makes V8 double the young generation up to 16 MB per semi-space, and those pages then stay
 * resident while the server idles. Growth is held (factor 1) from the first import of the CLI
 * until the server is ready; then V8 sizes the heap as it would by default.
 * Capping the young generation at 2 x 8 MB and the old generation's growth at 30 % after start
 * cut peak RSS by about 80 MB but cost about 10 % of throughput at 50 connections (CPU per
 * request 94 -> 107 us, bench A/B): throughput wins by default; memory-first deployments can
 * ask for them with `node --max-semi-space-size=8 --heap-growing-percent=30 bin/gateway.js serve`
 * (not in NODE_OPTIONS: Node refuses --heap-growing-percent there).
 * An operator's own young-generation flag leaves start-up alone too. While many requests are
 * in flight the sizing is memory-first (./heap-under-load.ts).
 */
import { setFlagsFromString } from "node:v8";
import { OPERATOR_FLAGS, V8_DEFAULT_GROWTH } from "./heap-under-load.js";

const ownYoung = OPERATOR_FLAGS.young;

if (!ownYoung) setFlagsFromString("--semi-space-growth-factor=1");

/**
 * Start-up is over (serve is ready, or another command's modules are loaded): the young
 * generation grows with the load again, as V8 sizes it.
 */
export function startupDone(): void {
  if (!ownYoung) setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`);
}
