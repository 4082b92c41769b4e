/**
 * Change notices on SQLite: `PRAGMA data_version` changes whenever another connection (a CLI
 * command beside the server) commits. Polled every 250 ms while anyone listens, so a revoke
 * reaches the server's caches well within docs/billing.md's second.
 */
const POLL_MS = 250;

export function watchDataVersion(version: () => number) {
  const listeners = new Set<() => void>();
  let timer: NodeJS.Timeout | undefined;
  let seen = 0;
  const poll = () => {
    const v = version();
    if (v === seen) return;
    seen = v;
    for (const l of listeners) l();
  };
  return {
    add(listener: () => void): () => void {
      listeners.add(listener);
      if (!timer) {
        seen = version();
        timer = setInterval(poll, POLL_MS);
        timer.unref();
      }
      return () => void listeners.delete(listener);
    },
    stop(): void {
      clearInterval(timer);
      timer = undefined;
      listeners.clear();
    },
  };
}
