/** `gateway credits add|show`: exact balances (USD decimal strings in and out). */
import type { Command } from "commander";
import { addCredits } from "../../operations/add-credits.js";
import { showCredits } from "../../operations/show-credits.js";
import { adjustCommand } from "./credits-adjust.js";
import { accountOf, cliBy, existingAccount, output, withStore } from "./context.js";
import { historyCommand } from "./credits-history.js";
import { positiveUsd } from "./parse.js";

export function creditsCommand(program: Command): void {
  const credits = program.command("credits").description("manage account balances");

  credits
    .command("add")
    .description("add funds to an account (USD)")
    .argument("<usd>", "amount in USD, e.g. 10 or 0.25")
    .option("--account <account>", "account", "default")
    .option("--create", "create the account if it does not exist (a typo would otherwise create one silently)")
    .action((usd: string, opts: { account?: string; create?: boolean }, cmd: Command) => {
      const amount = positiveUsd(usd);
      const account = accountOf(opts);
      return withStore(cmd, async (store) => {
        const r = await addCredits(store, account, amount, { create: Boolean(opts.create) }, Date.now(), cliBy());
        output(cmd, r, `Added $${r.added} to '${account}'. Balance: $${r.balance}`);
      });
    });

  adjustCommand(credits);
  historyCommand(credits);

  credits
    .command("show")
    .description("show an account's balance")
    .option("--account <account>", "account", "default")
    .action((opts: { account?: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const account = await existingAccount(store, opts);
        const r = await showCredits(store, account);
        output(cmd, r, `Balance of '${account}': $${r.balance}`);
      }),
    );
}
