/**
 * V8 heap sizing for a long-running server (docs/architecture.md, Memory), set from inside
 * the process (these two flags are read at each GC, so they work after start):
 * - Young generation: loading the modules makes V8 double it up to 16 MB per semi-space, and
 *   those pages then stay resident while the server idles. Growth is held (factor 1) from the
 *   first import of the CLI until the server is ready; then it grows with the load, up to
 *   2 x 8 MB instead of V8's 2 x 16 MB (a GC observer holds growth at the cap).
 * - Old generation: under load V8 lets it grow up to 4x between full collections when it
 *   judges GC cheap; a fixed factor of 1.3 after start keeps the garbage of a burst smaller
 *   (peak RSS), at the price of more frequent (mostly concurrent) full collections.
 * An operator's own flags of either kind (NODE_OPTIONS or node's command line) are left alone.
 */
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

const V8_DEFAULT_GROWTH = 2;
const OLD_GROWTH_PERCENT = 30;
const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
const ownYoung = flags.includes("semi-space");
const ownOld = flags.includes("heap-growing") || flags.includes("old-space");

/** The young generation's cap: 2 semi-spaces of 8 MB (V8's own maximum on 64-bit: 2 x 16 MB). */
const YOUNG_CAP = 16 * 1024 * 1024;

if (!ownYoung) setFlagsFromString("--semi-space-growth-factor=1");

/** Start-up is over: the young generation may grow with the load again; the old one grows by at most 30 % between full GCs. */
export function startupDone(): void {
  if (!ownYoung) capYoungGeneration();
  if (!ownOld) setFlagsFromString(`--heap-growing-percent=${OLD_GROWTH_PERCENT}`);
}

/** A command other than serve: its modules are loaded, V8's own young-generation sizing from here on. */
export function commandStarts(): void {
  if (!ownYoung) setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`);
}

/** After each GC: growth allowed (V8's factor) while the young generation is under the cap, held once it reaches it. */
function capYoungGeneration(): void {
  let growing = false;
  const check = () => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
    if (young < YOUNG_CAP === growing) return;
    growing = !growing;
    setFlagsFromString(`--semi-space-growth-factor=${growing ? V8_DEFAULT_GROWTH : 1}`);
  };
  check();
  new PerformanceObserver(check).observe({ entryTypes: ["gc"] });
}
