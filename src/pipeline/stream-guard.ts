/**
 * The upstream side of one streamed answer can be ended by the gateway, not only by the
 * client: when it runs past `server.timeouts.stream`, or when a shutdown's grace period is
 * over (docs/limits.md). Either way the client gets the in-stream error event and is billed
 * for what was delivered. Failover is unaffected: the guard arms only once the stream started.
 */
/**
 * The guards armed on each `stopping` signal, ended together by one listener. Node's
 * EventTarget walks its whole listener list on every add and remove (to find duplicates): one
 * listener per open stream made 10,000 streams cost ~1.7 s of CPU in add alone (bench --streams).
 */
const armed = new WeakMap<AbortSignal, Set<() => void>>();

function onStopping(stopping: AbortSignal): Set<() => void> {
  const known = armed.get(stopping);
  if (known) return known;
  const stops = new Set<() => void>();
  armed.set(stopping, stops);
  stopping.addEventListener(
    "abort",
    () => {
      for (const stop of stops) stop();
      stops.clear();
    },
    { once: true },
  );
  return stops;
}

export class StreamGuard {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private stopping: AbortSignal | undefined;
  private readonly stop = () => this.controller.abort();

  /** Follows the client: a client that leaves aborts the upstream call too. */
  constructor(private readonly client: AbortSignal) {
    if (client.aborted) this.stop();
    else client.addEventListener("abort", this.stop, { once: true });
  }

  /** For the upstream call. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The stream started: end it at `deadline` (epoch ms) or when `stopping` aborts. */
  arm(deadline: number, stopping: AbortSignal, now: number): void {
    if (stopping.aborted) return this.stop();
    this.stopping = stopping;
    onStopping(stopping).add(this.stop);
    this.timer = setTimeout(this.stop, Math.max(0, deadline - now));
    this.timer.unref();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.client.removeEventListener("abort", this.stop);
    if (this.stopping) armed.get(this.stopping)?.delete(this.stop);
  }
}
