/**
 * The upstream wait of each attempt, and the `Server-Timing` header made from it
 * (docs/observability.md): `gateway` is the time spent in the gateway up to the answer's head
 * (for a stream, its first byte), upstream waits excluded; `upstream` the wait of the
 * attempt that answered. docs/observability.md says what each includes.
 */
import type { Observer } from "./observer.js";
import type { RequestRecord } from "./request-record.js";

/** Runs one upstream attempt, its wait counted whether it answers or fails. */
export async function timed<E extends { provider: string; model: string }, T>(
  obs: Observer,
  rec: RequestRecord,
  attempt: (e: E) => Promise<T>,
  e: E,
): Promise<T> {
  const t0 = performance.now();
  let ok = false;
  try {
    const value = await attempt(e);
    ok = true;
    return value;
  } finally {
    const ms = performance.now() - t0;
    obs.upstreamWait(rec, e.provider, ms);
    rec.trace?.attempts.push({ provider: e.provider, model: e.model, start: t0, ms, ok });
  }
}

/** The header's value when the head goes out now. */
export function serverTiming(rec: RequestRecord): string {
  return `gateway;dur=${rec.overheadMs().toFixed(3)}, upstream;dur=${rec.upstreamMs.toFixed(3)}`;
}
