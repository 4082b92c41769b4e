/** Change notices: how a process learns that another one changed what it caches. */

export interface WatchStore {
  /**
   * Calls `listener` when another connection or process changed keys, credits, BYOK keys or
   * the catalog (a CLI revoke, `credits add`, `models sync`), so caches can be dropped:
   * SQLite polls its data_version, PostgreSQL listens for a notification. Returns the unsubscribe.
   */
  watch(listener: () => void): () => void;
}
