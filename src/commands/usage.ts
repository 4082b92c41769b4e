/** `gateway usage`: the ledger summed by model and by key. */
import type { Command } from "commander";
import { nanoToUsd } from "../money.js";
import type { UsageRow } from "../store/index.js";
import { accountOf, output, table, withStore } from "./context.js";
import { parseSince } from "./parse.js";

interface Totals { requests: number; prompt_tokens: number; completion_tokens: number; cost: number }

function sumInto(map: Map<string, Totals & Record<string, unknown>>, id: string, extra: Record<string, unknown>, r: UsageRow) {
  const t = map.get(id) ?? { ...extra, requests: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 };
  t.requests += r.requests;
  t.prompt_tokens += r.promptTokens;
  t.completion_tokens += r.completionTokens;
  t.cost += r.cost;
  map.set(id, t);
}

export function usageCommand(program: Command): void {
  program.command("usage")
    .description("requests, tokens and cost per model and key")
    .option("--account <account>", "only this account")
    .option("--since <when>", "ISO date or a duration back from now (24h, 7d)")
    .action((opts: { account?: string; since?: string }, cmd: Command) =>
      withStore(cmd, (store) => {
        const since = opts.since ? parseSince(opts.since, Date.now()) : undefined;
        const rows = store.usage({ account: opts.account ? accountOf(opts) : undefined, since });
        const byModel = new Map<string, Totals & Record<string, unknown>>();
        const byKey = new Map<string, Totals & Record<string, unknown>>();
        for (const r of rows) {
          sumInto(byModel, r.model, { model: r.model }, r);
          sumInto(byKey, r.keyId, { key_id: r.keyId, name: r.keyName }, r);
        }
        const money = <T extends Totals>(t: T) => ({ ...t, cost: nanoToUsd(t.cost) });
        const total = rows.reduce((a, r) => ({
          requests: a.requests + r.requests, prompt_tokens: a.prompt_tokens + r.promptTokens,
          completion_tokens: a.completion_tokens + r.completionTokens, cost: a.cost + r.cost,
        }), { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 });
        const result = { ...money(total), by_model: [...byModel.values()].map(money), by_key: [...byKey.values()].map(money) };
        output(cmd, result, [
          `${total.requests} requests, ${total.prompt_tokens} prompt + ${total.completion_tokens} completion tokens, $${nanoToUsd(total.cost)}`,
          "",
          table([["MODEL", "REQUESTS", "PROMPT", "COMPLETION", "COST"], ...result.by_model.map((m) => [String(m.model), String(m.requests), String(m.prompt_tokens), String(m.completion_tokens), `$${m.cost}`])]),
          "",
          table([["KEY", "NAME", "REQUESTS", "COST"], ...result.by_key.map((k) => [String(k.key_id), String(k.name ?? ""), String(k.requests), `$${k.cost}`])]),
        ].join("\n"));
      }),
    );
}
