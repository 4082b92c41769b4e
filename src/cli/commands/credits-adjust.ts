/**
 * `gateway credits adjust <account> <±amount> --reason <text>`: corrects a balance (a wrong
 * credit, a refund) with a ledger row of its own kind; never below zero (docs/cli.md).
 */
import type { Command } from "commander";
import { UsageError } from "../../core/errors.js";
import { nanoToUsd, usdToNanoExact } from "../../core/money.js";
import { adjustCredits } from "../../operations/adjust-credits.js";
import { accountOf, cliBy, output, withStore } from "./context.js";

/** `+2.5`, `-0.30`, `7`: exact signed nano-USD; zero is bad usage. */
function signedUsd(value: string): bigint {
  const m = /^([+-]?)(.*)$/.exec(value.trim())!;
  let nano: bigint;
  try {
    nano = usdToNanoExact(m[2]!);
  } catch (err) {
    throw new UsageError(`amount: ${(err as Error).message}`);
  }
  if (nano === 0n) throw new UsageError("amount: must not be zero");
  return m[1] === "-" ? -nano : nano;
}

export function adjustCommand(credits: Command): void {
  credits
    .command("adjust")
    .description("correct an account's balance by a signed USD amount, with a reason (never below zero)")
    .argument("<account>", "the account")
    .argument("<amount>", "signed USD amount, e.g. -5 or +2.50")
    .requiredOption("--reason <text>", "why: kept with the adjustment")
    .action((name: string, amount: string, opts: { reason: string }, cmd: Command) => {
      const account = accountOf({ account: name });
      const delta = signedUsd(amount);
      const reason = opts.reason.trim();
      if (!reason) throw new UsageError("--reason: must not be empty");
      return withStore(cmd, async (store) => {
        const adjusted = await adjustCredits(store, account, delta, reason, Date.now(), cliBy());
        const { balance } = adjusted;
        output(cmd, adjusted, `Adjusted '${account}' by ${delta < 0n ? "-" : "+"}$${nanoToUsd(delta < 0n ? -delta : delta)} (${reason}). Balance: $${balance}`);
      });
    });
}
