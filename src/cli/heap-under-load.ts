/**
 * V8's heap while many model requests are in flight at once, as long streams are
 * (docs/architecture.md, "Memory"): each holds ~30 KB for seconds to minutes, allocates little
 * per second, and what V8's default sizing leaves between full collections is garbage: ~150
 * MB of it at 10,000 open streams, and a young generation grown to 2 x 16 MB already at 1,000.
 * From IN_FLIGHT.heavy requests on, the young generation stops growing and the old one may
 * grow 30 % between full collections; below IN_FLIGHT.light, V8 sizes the heap again. Under
 * 200 the policy never acts, so the throughput of short requests (50 connections) is V8's.
 * Both flags are read by V8 at each GC; an operator's own flag for either is left alone.
 */
import { setFlagsFromString } from "node:v8";
import { onInFlight } from "../http/in-flight.js";

/** V8's own `--semi-space-growth-factor`. */
export const V8_DEFAULT_GROWTH = 2;

/** In-flight requests from which the heap is sized for memory, and below which by V8 again. */
export const IN_FLIGHT = { heavy: 200, light: 100 } as const;

const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
export const OPERATOR_FLAGS = { young: flags.includes("semi-space"), old: flags.includes("heap-growing-percent") };

/** The listener of the in-flight count: sets the flags on each crossing, with hysteresis. */
export function heapPolicy(setFlags: (flags: string) => void, own = OPERATOR_FLAGS): (inFlight: number) => void {
  let heavy = false;
  return (inFlight) => {
    if (heavy ? inFlight >= IN_FLIGHT.light : inFlight < IN_FLIGHT.heavy) return;
    heavy = !heavy;
    if (!own.old) setFlags(`--heap-growing-percent=${heavy ? 30 : 0}`);
    if (!own.young) setFlags(`--semi-space-growth-factor=${heavy ? 1 : V8_DEFAULT_GROWTH}`);
  };
}

/** `gateway serve`, once ready. */
export function followInFlight(): void {
  onInFlight(heapPolicy(setFlagsFromString));
}
