/** `gateway credits history`: an account's grants and adjustments, newest first, with who made each and why (docs/cli.md). */
import type { Command } from "commander";
import { showCredits } from "../../operations/show-credits.js";
import { existingAccount, output, table, withStore } from "./context.js";
import { positiveInt } from "./parse.js";

type History = Required<Awaited<ReturnType<typeof showCredits>>>;

function human(r: History): string {
  const head = `Balance of '${r.account}': $${r.balance}`;
  if (r.history.length === 0) return `${head}\nNo credits yet (gateway credits add).`;
  const rows = r.history.map((h) => [h.created_at, signed(h.amount), h.kind, h.by ?? "-", h.reason ?? ""]);
  return `${head}\n\n${table([["WHEN", "AMOUNT $", "KIND", "BY", "REASON"], ...rows])}`;
}

const signed = (usd: string) => (usd.startsWith("-") ? usd : `+${usd}`);

export function historyCommand(credits: Command): void {
  credits
    .command("history")
    .description("an account's credits added and adjusted, newest first: who, when, why")
    .option("--account <account>", "account", "default")
    .option("--limit <n>", "at most this many entries", positiveInt, 50)
    .action((opts: { account?: string; limit: number }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const account = await existingAccount(store, opts);
        const r = (await showCredits(store, account, opts.limit)) as History;
        output(cmd, r, human(r));
      }),
    );
}
