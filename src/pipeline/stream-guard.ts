/**
 * The upstream side of one streamed answer can be ended by the gateway, not only by the
 * client: when it runs past `server.timeouts.stream`, or when a shutdown's grace period is
 * over (docs/limits.md). Either way the client gets the in-stream error event and is billed
 * for what was delivered. Failover is unaffected: the guard arms only once the stream started.
 */
export class StreamGuard {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private unfollow: (() => void) | undefined;
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
    this.unfollow = follow(stopping, this.stop);
    this.timer = setTimeout(this.stop, Math.max(0, deadline - now));
    this.timer.unref();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.client.removeEventListener("abort", this.stop);
    this.unfollow?.();
  }
}

/**
 * The streams waiting on one shared signal (`gw.stopping`), behind one listener of its own:
 * removeEventListener searches the signal's listener list, so 10,000 streams each adding and
 * removing their own would cost time quadratic in the streams open.
 */
const followers = new WeakMap<AbortSignal, Set<() => void>>();

function follow(signal: AbortSignal, then: () => void): () => void {
  let set = followers.get(signal);
  if (!set) {
    const all = (set = new Set());
    followers.set(signal, all);
    signal.addEventListener("abort", () => all.forEach((f) => f()), { once: true });
  }
  set.add(then);
  return () => void set.delete(then);
}
