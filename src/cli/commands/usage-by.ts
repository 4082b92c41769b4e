/**
 * `gateway usage --by tag:NAME|member|key|model|endpoint|tool|day [--since] [--until] [--json|--csv]`
 * (docs/usage.md): one row per group over the range; `--csv` prints the rows the dashboard's
 * `Export CSV` downloads, `--json` the same rows as an array.
 */
import type { Command } from "commander";
import { GatewayError, UsageError } from "../../core/errors.js";
import { parseGrouping, usageCsv, usageGroups, type UsageGroupRow } from "../../operations/usage-groups.js";
import { usageRange } from "../../operations/usage-range.js";
import type { Store, UsageGrouping } from "../../store/index.js";
import { globals, table } from "./context.js";

export interface UsageByOptions {
  by: string;
  account?: string;
  since?: string;
  until?: string;
  csv?: boolean;
}

/** What a null group stands for (docs/usage.md): no such tag, or a key no dashboard user created. */
function nullGroupLabel(grouping: UsageGrouping): string {
  return grouping.by === "tag" ? "(no tag)" : grouping.by === "member" ? "(CLI)" : "(none)";
}

function human(grouping: UsageGrouping, rows: UsageGroupRow[]): string {
  const head = grouping.by === "tag" ? `TAG ${grouping.tag.toUpperCase()}` : grouping.by.toUpperCase();
  if (rows.length === 0) return "No requests in this range.";
  return table([
    [head, "REQUESTS", "PROMPT", "COMPLETION", "COST"],
    ...rows.map((r) => [r.group ?? nullGroupLabel(grouping), String(r.requests), String(r.prompt_tokens), String(r.completion_tokens), `$${r.cost}`]),
  ]);
}

/** A bad `--by`, `--since` or `--until` is bad usage (exit 2), not a failed operation. */
function asUsage<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof GatewayError && err.status === 400) throw new UsageError(`--${err.param ?? "by"}: ${err.message.replace(/^\w+: /, "")}`);
    throw err;
  }
}

export async function printUsageBy(cmd: Command, store: Store, account: string | undefined, opts: UsageByOptions): Promise<void> {
  const json = globals(cmd).json === true;
  if (json && opts.csv) throw new UsageError("--json and --csv: choose one");
  const grouping = asUsage(() => parseGrouping(opts.by));
  const range = asUsage(() => usageRange({ account, since: opts.since, until: opts.until }, Date.now()));
  const rows = await usageGroups(store, grouping, range);
  if (opts.csv) process.stdout.write(usageCsv(rows));
  else process.stdout.write(json ? `${JSON.stringify(rows, null, 2)}\n` : `${human(grouping, rows)}\n`);
}
