/** `gateway credits add|show`: exact balances (USD decimal strings in and out). */
import type { Command } from "commander";
import { nanoToUsd } from "../money.js";
import { adjustCommand, mustExist } from "./credits-adjust.js";
import { accountOf, output, withStore } from "./context.js";
import { positiveUsd } from "./parse.js";

export function creditsCommand(program: Command): void {
  const credits = program.command("credits").description("manage account balances");

  credits.command("add")
    .description("add funds to an account (USD)")
    .argument("<usd>", "amount in USD, e.g. 10 or 0.25")
    .option("--account <account>", "account", "default")
    .option("--create", "create the account if it does not exist (a typo would otherwise create one silently)")
    .action((usd: string, opts: { account?: string; create?: boolean }, cmd: Command) => {
      const amount = positiveUsd(usd);
      const account = accountOf(opts);
      return withStore(cmd, async (store) => {
        if (!opts.create) await mustExist(store, account);
        const balance = nanoToUsd(await store.addCredits(account, amount, Date.now()));
        output(cmd, { account, added: nanoToUsd(amount), balance }, `Added $${nanoToUsd(amount)} to '${account}'. Balance: $${balance}`);
      });
    });

  adjustCommand(credits);

  credits.command("show")
    .description("show an account's balance")
    .option("--account <account>", "account", "default")
    .action((opts: { account?: string }, cmd: Command) => {
      const account = accountOf(opts);
      return withStore(cmd, async (store) => {
        const balance = nanoToUsd((await store.balance(account)) ?? 0n);
        output(cmd, { account, balance }, `Balance of '${account}': $${balance}`);
      });
    });
}
