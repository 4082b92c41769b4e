/**
 * `gateway usage`: the ledger summed by model and by key. Reads the per-request rows and the
 * daily rollups that retention left of older ones, so pruning never changes a total.
 */
import type { Command } from "commander";
import { nanoToUsd } from "../money.js";
import type { UsageRow } from "../store/index.js";
import { accountOf, output, table, withStore } from "./context.js";
import { parseSince } from "./parse.js";

/** `cost` is what was charged; `uncollected` what the balance or a key's budget could not cover (contract.md §10). */
interface Totals { requests: number; prompt_tokens: number; completion_tokens: number; cost: bigint; list_cost: bigint; uncollected: bigint }
type Group = Totals & Record<string, unknown>;

const zero = (): Totals => ({ requests: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0n, list_cost: 0n, uncollected: 0n });

function add(t: Totals, r: UsageRow): void {
  t.requests += r.requests;
  t.prompt_tokens += r.promptTokens;
  t.completion_tokens += r.completionTokens;
  t.cost += r.cost;
  t.list_cost += r.listCost;
  t.uncollected += r.uncollected;
}

function sumInto(map: Map<string, Group>, id: string, extra: Record<string, unknown>, r: UsageRow): void {
  const t = map.get(id) ?? { ...extra, ...zero() };
  add(t, r);
  map.set(id, t);
}

/** Money as exact decimal USD strings (contract.md §2). */
const money = <T extends Totals>(t: T) => ({ ...t, cost: nanoToUsd(t.cost), list_cost: nanoToUsd(t.list_cost), uncollected: nanoToUsd(t.uncollected) });

export function summarize(rows: UsageRow[]) {
  const byModel = new Map<string, Group>();
  const byKey = new Map<string, Group>();
  const byEndpoint = new Map<string, Group>();
  const total = zero();
  for (const r of rows) {
    add(total, r);
    sumInto(byModel, r.model, { model: r.model }, r);
    sumInto(byKey, r.keyId, { key_id: r.keyId, name: r.keyName }, r);
    sumInto(byEndpoint, r.endpoint, { endpoint: r.endpoint }, r);
  }
  return { ...money(total), by_model: [...byModel.values()].map(money), by_key: [...byKey.values()].map(money), by_endpoint: [...byEndpoint.values()].map(money) };
}

function human(u: ReturnType<typeof summarize>): string {
  return [
    `${u.requests} requests, ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens, $${u.cost}` + (u.uncollected === "0" ? "" : ` charged, $${u.uncollected} uncollected`),
    "",
    table([["MODEL", "REQUESTS", "PROMPT", "COMPLETION", "COST", "UNCOLLECTED"], ...u.by_model.map((m) => [String(m.model), String(m.requests), String(m.prompt_tokens), String(m.completion_tokens), `$${m.cost}`, `$${m.uncollected}`])]),
    "",
    table([["KEY", "NAME", "REQUESTS", "COST", "UNCOLLECTED"], ...u.by_key.map((k) => [String(k.key_id), String(k.name ?? ""), String(k.requests), `$${k.cost}`, `$${k.uncollected}`])]),
    "",
    table([["ENDPOINT", "REQUESTS", "PROMPT", "COMPLETION", "COST"], ...u.by_endpoint.map((e) => [String(e.endpoint), String(e.requests), String(e.prompt_tokens), String(e.completion_tokens), `$${e.cost}`])]),
  ].join("\n");
}

export function usageCommand(program: Command): void {
  program.command("usage")
    .description("requests, tokens and cost per model, key and endpoint")
    .option("--account <account>", "only this account")
    .option("--since <when>", "ISO date or a duration back from now (24h, 7d); days past the retention count whole")
    .action((opts: { account?: string; since?: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const since = opts.since ? parseSince(opts.since, Date.now()) : undefined;
        const result = summarize(await store.usage({ account: opts.account ? accountOf(opts) : undefined, since }));
        output(cmd, result, human(result));
      }),
    );
}
