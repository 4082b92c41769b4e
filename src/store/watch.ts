/** Change notices: how a process learns that another one changed what it caches. */

export interface WatchStore {
  /**
   * Calls `listener` when another connection or process changed keys, credits, BYOK keys or
   * the catalog (a CLI revoke, `credits add`, `models sync`), so caches can be dropped:
   * SQLite polls its data_version, PostgreSQL listens for a notification. Returns the unsubscribe.
   */
  watch(listener: () => void): () => void;
  /**
   * False while this process may be missing notices (PostgreSQL: the listener is not connected or
   * has not heard its own heartbeat within its bound): callers must not trust their caches then.
   * Absent: always true (SQLite's poll cannot go deaf).
   */
  hearing?(): boolean;
}
