/** `gateway keys update <id|name>`: budget, budget period, rpm, expiry, response cache, MCP grant; a running server sees it within 1 s. */
import type { Command } from "commander";
import type { BudgetPeriod } from "../../core/budget-periods.js";
import { UsageError } from "../../core/errors.js";
import type { KeyChanges } from "../../store/index.js";
import { checkBudgetFlags, withBudgetOptions } from "./key-budget.js";
import { findNamedKey } from "../../operations/find-key.js";
import { updateKey } from "../../operations/update-key.js";
import { parseGrantList } from "../../mcp/grants.js";
import { accountOf, cliBy, output, withStore } from "./context.js";
import { parseExpiry, positiveInt } from "./parse.js";
import { cacheModeOf, withCacheOptions, type CacheFlags } from "./key-cache.js";
import { withGuardrailsOption, type GuardrailsFlags } from "./key-guardrails.js";

interface UpdateOptions extends CacheFlags, GuardrailsFlags {
  budget?: bigint | false;
  budgetPeriod?: BudgetPeriod;
  rpm?: number;
  expires?: string;
  account?: string;
  mcp?: string | false;
}

export function keysUpdateCommand(keys: Command): void {
  withGuardrailsOption(
    withCacheOptions(
      withBudgetOptions(
        keys.command("update").description("change a key's budget, rpm, expiry, response cache or guardrails by id or name").argument("<id|name>"),
      ),
      true,
    ),
  )
    .option("--no-budget", "remove the key's budget")
    .option("--rpm <n>", "requests per 60 s for this key", positiveInt)
    .option("--expires <when>", "ISO date/time or a duration like 90s, 12h, 30d")
    .option("--account <account>", "the account whose key it is (needed for a name several accounts use)")
    .option("--mcp <grants>", 'the MCP tools it may call, replacing its grant: "<server>:<tool glob>,..." (github:*, fs:read_*)')
    .option("--no-mcp", "no MCP tool at all")
    .action((idOrName: string, opts: UpdateOptions, cmd: Command) =>
      withStore(cmd, async (store) => {
        const key = await findNamedKey(store, idOrName, opts.account && accountOf(opts));
        const now = Date.now();
        const noBudget = opts.budget === false;
        checkBudgetFlags({ budget: opts.budget === false ? undefined : opts.budget, budgetPeriod: opts.budgetPeriod, noBudget }, key.budget != null);
        const changes: KeyChanges = {};
        if (opts.budget !== undefined) changes.budget = opts.budget === false ? null : opts.budget;
        if (opts.budgetPeriod) changes.budgetPeriod = opts.budgetPeriod;
        if (opts.rpm !== undefined) changes.rpm = opts.rpm;
        if (opts.expires !== undefined) changes.expiresAt = parseExpiry(opts.expires, now);
        const cache = cacheModeOf(opts);
        if (cache) changes.cache = cache;
        if (opts.guardrails) changes.guardrails = opts.guardrails;
        if (opts.mcp !== undefined) changes.mcp = opts.mcp === false ? null : parseGrantList(opts.mcp);
        if (Object.keys(changes).length === 0)
          throw new UsageError(
            "nothing to change: give --budget, --budget-period, --no-budget, --rpm, --expires, --cache, --cache-nondeterministic, --no-cache, --guardrails, --mcp or --no-mcp",
          );
        output(cmd, await updateKey(store, key.id, changes, undefined, now, cliBy()), `Updated key '${key.name}' (${key.id}).`);
      }),
    );
}
