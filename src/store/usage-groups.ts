/**
 * Usage broken down one way over a time range (docs/usage.md): `gateway usage --by` and the
 * dashboard's Usage page. Each grouping reads ledger rows and the daily rollups retention left
 * of older ones, so pruning never changes a total.
 */

/** What to group by: a tag's value (`tag:team`), the key's creator, the key, the model, the API, the UTC day. */
/** `tool`: MCP tool calls by `<server>/<tool>` (docs/mcp.md); every other request in the null group. */
export type UsageGrouping = { by: "member" | "key" | "model" | "endpoint" | "day" | "tool" } | { by: "tag"; tag: string };

/**
 * `since` inclusive, `until` exclusive (ms). A ledger row counts when it was created within;
 * a rolled-up day when it starts within (rollups keep days, not instants).
 */
export interface UsageRange {
  account?: string;
  /**
   * Only requests of keys this dashboard user created (a `member`'s own usage). Rolled-up days
   * keep tags per account, not per key: by tag, such a day's requests of theirs count under the
   * no-tag group (null), so their totals stay exact (docs/usage.md "By tag").
   */
  member?: string;
  since?: number;
  until?: number;
}

export interface UsageGroup {
  /**
   * The model, key id, endpoint, tag value, creator's email or UTC day (`2026-11-26`); null for
   * requests without that tag, or keys no dashboard user created (the CLI's, or older ones).
   */
  group: string | null;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** What was charged, nano-USD, exact past 2^53. */
  cost: bigint;
}

export interface UsageGroupStore {
  /** One row per group that had requests in the range, in no particular order. */
  usageGroups(grouping: UsageGrouping, range: UsageRange): Promise<UsageGroup[]>;
}
