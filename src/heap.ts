/**
 * V8 heap sizing for a long-running server (docs/architecture.md, Memory), set from inside
 * the process (these two flags are read at each GC, so they work after start):
 * - Young generation: loading the modules makes V8 double it up to 16 MB per semi-space, and
 *   those pages then stay resident while the server idles. Growth is held (factor 1) from the
 *   first import of the CLI until the server is ready, then V8's default (2) is restored, so a
 *   loaded server sizes its young generation as before.
 * - Old generation: under load V8 lets it grow up to 4x between full collections when it
 *   judges GC cheap; a fixed factor of 1.3 after start keeps the garbage of a burst smaller
 *   (peak RSS), at the price of more frequent (mostly concurrent) full collections.
 * An operator's own flags of either kind (NODE_OPTIONS or node's command line) are left alone.
 */
import { setFlagsFromString } from "node:v8";

const V8_DEFAULT_GROWTH = 2;
const OLD_GROWTH_PERCENT = 30;
const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
const ownYoung = flags.includes("semi-space");
const ownOld = flags.includes("heap-growing") || flags.includes("old-space");

if (!ownYoung) setFlagsFromString("--semi-space-growth-factor=1");

/** Start-up is over: the young generation may grow with the load again; the old one grows by at most 30 % between full GCs. */
export function startupDone(): void {
  if (!ownYoung) setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`);
  if (!ownOld) setFlagsFromString(`--heap-growing-percent=${OLD_GROWTH_PERCENT}`);
}
