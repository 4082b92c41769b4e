/**
 * `gateway usage`: the ledger summed by model and by key, response-cache hits and what they saved included. Reads the per-request rows and the
 * daily rollups that retention left of older ones, so pruning never changes a total.
 */
import type { Command } from "commander";
import { summarize, usageSummary } from "../../operations/usage-summary.js";
import { UsageError } from "../../core/errors.js";
import { existingAccount, output, table, withStore } from "./context.js";
import { parseSince } from "./parse.js";
import { printUsageBy, type UsageByOptions } from "./usage-by.js";

function human(u: ReturnType<typeof summarize>): string {
  return [
    `${u.requests} requests, ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens, $${u.cost}` +
      (u.uncollected === "0" ? "" : ` charged, $${u.uncollected} uncollected`),
    ...(u.cache_hits ? [`${u.cache_hits} answered from the response cache, $${u.cache_saved} saved at list price`] : []),
    ...(u.tool_cost === "0" ? [] : [`$${u.tool_cost} of it per-call tool fees (web search, file search, grounding) at list price`]),
    ...(u.bounded ? [`${u.bounded} billed at a bound: their ledger rows keep the counts reported`] : []),
    "",
    table([
      ["MODEL", "REQUESTS", "PROMPT", "COMPLETION", "COST", "UNCOLLECTED", "CACHE HITS", "SAVED"],
      ...u.by_model.map((m) => [
        String(m.model),
        String(m.requests),
        String(m.prompt_tokens),
        String(m.completion_tokens),
        `$${m.cost}`,
        `$${m.uncollected}`,
        String(m.cache_hits),
        `$${m.cache_saved}`,
      ]),
    ]),
    "",
    table([
      ["KEY", "NAME", "REQUESTS", "COST", "UNCOLLECTED"],
      ...u.by_key.map((k) => [String(k.key_id), String(k.name ?? ""), String(k.requests), `$${k.cost}`, `$${k.uncollected}`]),
    ]),
    "",
    table([
      ["ENDPOINT", "REQUESTS", "PROMPT", "COMPLETION", "COST"],
      ...u.by_endpoint.map((e) => [String(e.endpoint), String(e.requests), String(e.prompt_tokens), String(e.completion_tokens), `$${e.cost}`]),
    ]),
  ].join("\n");
}

export function usageCommand(program: Command): void {
  program
    .command("usage")
    .description("requests, tokens and cost per model, key and endpoint; --by breaks it down one way over a range")
    .option("--account <account>", "only this account")
    .option("--by <grouping>", "tag:NAME, member, key, model, endpoint, tool (MCP tool calls) or day: one row per group (docs/usage.md)")
    .option("--since <when>", "ISO date or a duration back from now (24h, 7d); days past the retention count whole")
    .option("--until <when>", "with --by: end of the range, exclusive; a date (2026-11-30) includes that whole day")
    .option("--csv", "with --by: the rows as CSV (group,requests,prompt_tokens,completion_tokens,cost)")
    .action((opts: Partial<UsageByOptions>, cmd: Command) =>
      withStore(cmd, async (store) => {
        if (!opts.by && (opts.until || opts.csv)) throw new UsageError(`${opts.until ? "--until" : "--csv"} needs --by (gateway usage --by model ...)`);
        const account = opts.account ? await existingAccount(store, opts) : undefined;
        if (opts.by) return printUsageBy(cmd, store, account, { ...opts, by: opts.by });
        const since = opts.since ? parseSince(opts.since, Date.now()) : undefined;
        const result = await usageSummary(store, { account, since });
        output(cmd, result, human(result));
      }),
    );
}
