/**
 * Key budgets on the command line (docs/billing.md): `--budget <usd>` and `--budget-period`
 * for `keys create` and `keys update`, and what `keys list` shows (budget, period, spent).
 */
import { InvalidArgumentError, type Command } from "commander";
import { BUDGET_PERIODS, type BudgetPeriod } from "../../core/budget-periods.js";
import { UsageError } from "../../core/errors.js";
import { usdToNanoExact } from "../../core/money.js";

function budgetUsd(value: string): bigint {
  try {
    return usdToNanoExact(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

function budgetPeriod(value: string): BudgetPeriod {
  if (!(BUDGET_PERIODS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${BUDGET_PERIODS.join(", ")}`);
  return value as BudgetPeriod;
}

export function withBudgetOptions(cmd: Command): Command {
  return cmd
    .option("--budget <usd>", "most this key may spend per period (USD); requests that may exceed it get 402", budgetUsd)
    .option("--budget-period <period>", "day, week or month (calendar periods in UTC), or total", budgetPeriod);
}

/** A period without a budget means nothing: refused, so a typo is not silently kept. */
export function checkBudgetFlags(opts: { budget?: bigint; budgetPeriod?: BudgetPeriod; noBudget?: boolean }, hadBudget: boolean): void {
  if (opts.budgetPeriod && opts.budget === undefined && !hadBudget) throw new UsageError("--budget-period needs --budget");
  if (opts.noBudget && (opts.budget !== undefined || opts.budgetPeriod))
    throw new UsageError("--no-budget cannot be combined with --budget or --budget-period");
}
