/** A key as the CLI and the dashboard show it: masked, never the full value (docs/cli.md, docs/dashboard.md). */
import { periodStart } from "../core/budget-periods.js";
import { keyState, maskKey } from "../access/keys.js";
import { nanoToUsd } from "../core/money.js";
import type { KeyRecord, Store } from "../store/index.js";

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** Budget fields: the budget, its period and what was spent in the current period (decimal USD). */
async function budgetView(store: Store, k: KeyRecord, now: number) {
  const period = k.budgetPeriod ?? "total";
  const { spent } = await store.keyBudgetUse(k.id, periodStart(period, now));
  return { budget: k.budget === null || k.budget === undefined ? null : nanoToUsd(k.budget), budget_period: period, spent: nanoToUsd(spent) };
}

export async function keyView(store: Store, k: KeyRecord, now: number) {
  return {
    id: k.id,
    name: k.name,
    account: k.account,
    masked: maskKey(k.last4),
    state: keyState(k, now),
    created_at: iso(k.createdAt),
    expires_at: iso(k.expiresAt),
    last_used_at: iso(k.lastUsedAt),
    rpm: k.rpm,
    cache: k.cache ?? "off",
    ...(await budgetView(store, k, now)),
    // An owner or admin set this key's limits: its member may only tighten them (operations/key-limits.ts).
    limits_by_manager: k.limitsByManager ?? false,
    // The MCP tools it may call (docs/mcp.md, "Grants"); null: none.
    mcp: k.mcp?.length ? k.mcp : null,
    // The key's own secret guardrail mode (docs/guardrails.md); absent: the config's.
    ...(k.guardrails ? { guardrails: k.guardrails } : {}),
  };
}
