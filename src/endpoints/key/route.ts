/**
 * GET /v1/key (docs/billing.md): what the calling key may still do, so a program can check
 * before it spends. Money as exact decimal USD strings; `budget` is the tightest level's
 * (account, member, key): its limit minus the period's spend and open holds, what a new request could still reserve.
 */
import type { EndpointServices } from "../../pipeline/endpoint.js";
import { z } from "zod";
import { levelsOf, tightest } from "../../billing/budget.js";
import { BUDGET_LEVELS } from "../../core/budget.js";
import { maskKey } from "../../access/keys.js";
import { nanoToUsd } from "../../core/money.js";
import type { KeyRecord } from "../../store/index.js";

const Usd = z.string().regex(/^\d+(\.\d+)?$/);

export const KeyInfo = z.object({
  name: z.string(),
  account: z.string(),
  masked: z.string(),
  expires_at: z.string().nullable(),
  rate_limit: z.object({ requests: z.number().int(), window: z.number() }),
  budget: z
    .object({
      limit: Usd,
      period: z.enum(["day", "week", "month", "total"]),
      spent: Usd,
      remaining: Usd,
      level: z.enum(BUDGET_LEVELS).describe("which budget this is: the one with the least remaining"),
    })
    .nullable(),
  balance: Usd,
});

export async function keyInfo(gw: EndpointServices, key: KeyRecord): Promise<z.infer<typeof KeyInfo>> {
  const limit = key.rpm ? { requests: key.rpm, window: 60 } : gw.config.limits.key;
  return {
    name: key.name,
    account: key.account,
    masked: maskKey(key.last4),
    expires_at: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
    rate_limit: { requests: limit.requests, window: limit.window },
    budget: await budgetOf(gw, key),
    balance: nanoToUsd((await gw.store.balance(key.account)) ?? 0n),
  };
}

/** The tightest of the account's, the member's and the key's budgets (docs/limits.md "Budgets"). */
async function budgetOf(gw: EndpointServices, key: KeyRecord) {
  const t = tightest(await levelsOf(gw.store, key, gw.now()));
  if (!t) return null;
  return { limit: nanoToUsd(t.limit), period: t.period, spent: nanoToUsd(t.spent), remaining: nanoToUsd(t.left), level: t.level };
}
