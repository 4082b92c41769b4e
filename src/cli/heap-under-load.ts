/**
 * V8's heap while the process holds a lot at once (docs/architecture.md, "Memory"), set from
 * two signals, each with hysteresis:
 * - many model requests in flight, as long streams are: each holds ~30 KB for seconds to
 *   minutes, allocates little per second, and what V8's default sizing leaves between full
 *   collections is garbage: ~150 MB of it at 10,000 open streams, and a young generation grown
 *   to 2 x 16 MB already at 1,000. From IN_FLIGHT.heavy requests on, the young generation stops
 *   growing and the old one may grow 30 % between full collections; below IN_FLIGHT.light, V8
 *   sizes the heap again. Under 200 the policy never acts, so the throughput of short requests
 *   (50 connections) is V8's.
 * - the response cache keeping a large live set (CACHE_HELD bytes, cache/budget.ts): V8 lets
 *   the old generation grow up to ~4x its live size between full collections, so 64 MiB of
 *   kept 1 MB answers left ~300 MB of garbage above them (docs/cache.md, "Memory"). From
 *   CACHE_HELD.heavy on, the old generation may grow 30 %; the young one is left alone.
 * Both flags are read by V8 at each GC; an operator's own flag for either is left alone.
 */
import { setFlagsFromString } from "node:v8";
import { onCacheHeld } from "../cache/budget.js";
import { onInFlight } from "../http/in-flight.js";

/** V8's own `--semi-space-growth-factor`. */
export const V8_DEFAULT_GROWTH = 2;

/** In-flight requests from which the heap is sized for memory, and below which by V8 again. */
export const IN_FLIGHT = { heavy: 200, light: 100 } as const;

/** Bytes the response cache keeps from which the old generation grows at most 30 %, and below which as V8 sizes it. */
export const CACHE_HELD = { heavy: 16 * 1024 * 1024, light: 8 * 1024 * 1024 } as const;

const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
export const OPERATOR_FLAGS = { young: flags.includes("semi-space"), old: flags.includes("heap-growing-percent") };

export interface HeapPolicy {
  inFlight(open: number): void;
  cacheHeld(bytes: number): void;
}

/** A follower of a count: true on crossing `heavy` upwards, false on crossing `light` downwards. */
function crossing(bounds: { heavy: number; light: number }, changed: (heavy: boolean) => void): (n: number) => void {
  let heavy = false;
  return (n) => {
    if (heavy ? n >= bounds.light : n < bounds.heavy) return;
    heavy = !heavy;
    changed(heavy);
  };
}

/** The listeners of both signals: each crossing sets the flags the signals now call for. */
export function heapPolicy(setFlags: (flags: string) => void, own = OPERATOR_FLAGS): HeapPolicy {
  const state = { streams: false, cache: false, old: false };
  const apply = () => {
    const old = state.streams || state.cache;
    if (old !== state.old && !own.old) setFlags(`--heap-growing-percent=${old ? 30 : 0}`);
    state.old = old;
  };
  return {
    inFlight: crossing(IN_FLIGHT, (heavy) => {
      state.streams = heavy;
      apply();
      if (!own.young) setFlags(`--semi-space-growth-factor=${heavy ? 1 : V8_DEFAULT_GROWTH}`);
    }),
    cacheHeld: crossing(CACHE_HELD, (heavy) => {
      state.cache = heavy;
      apply();
    }),
  };
}

/** `gateway serve`, once ready. */
export function followInFlight(): void {
  const policy = heapPolicy(setFlagsFromString);
  onInFlight(policy.inFlight);
  onCacheHeld(policy.cacheHeld);
}
