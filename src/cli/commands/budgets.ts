/**
 * `gateway budgets set|remove|list` (docs/cli.md "Budgets"): an account's budget, or a member's
 * (all keys they created in the account), per day, week, month (the default) or in total. Key
 * budgets stay on `keys create|update`.
 */
import type { Command } from "commander";
import { BUDGET_PERIODS, type BudgetPeriod } from "../../core/budget-periods.js";
import { UsageError } from "../../core/errors.js";
import { listBudgets, removeBudget, setBudget, type BudgetView } from "../../operations/account-budgets.js";
import { accountOf, cliBy, output, table, withStore } from "./context.js";
import { usdToNanoExact } from "../../core/money.js";

interface LevelOptions {
  account?: string;
  member?: string;
}

const who = (b: { account: string; member: string | null }) => (b.member === null ? `account '${b.account}'` : `member '${b.member}' of '${b.account}'`);
const per = (p: BudgetPeriod) => (p === "total" ? "in total" : `per ${p}`);

function periodOf(value: string): BudgetPeriod {
  if (!(BUDGET_PERIODS as readonly string[]).includes(value)) throw new UsageError(`--period: expected one of ${BUDGET_PERIODS.join(", ")}`);
  return value as BudgetPeriod;
}

/** A budget of $0 is allowed: it stops platform spending at that level (BYOK still works). */
function budgetUsd(value: string): bigint {
  try {
    return usdToNanoExact(value);
  } catch (err) {
    throw new UsageError(`amount: ${(err as Error).message}`);
  }
}

function requireAccount(opts: LevelOptions): string {
  if (opts.account === undefined) throw new UsageError("--account is required");
  return accountOf(opts);
}

const listing = (rows: BudgetView[]) =>
  rows.length === 0
    ? "No budgets. Set one with: gateway budgets set <usd> --account A [--member <email>]"
    : table([
        ["ACCOUNT", "MEMBER", "LIMIT", "PERIOD", "SPENT", "REMAINING"],
        ...rows.map((b) => [b.account, b.member ?? "-", `$${b.limit}`, b.period, `$${b.spent}`, `$${b.remaining}`]),
      ]);

export function budgetsCommand(program: Command): void {
  const budgets = program.command("budgets").description("account and member budgets (key budgets: keys create|update --budget)");

  budgets
    .command("set")
    .description("set the account's budget, or a member's (all keys they created in the account)")
    .argument("<usd>", "most that may be spent per period, in USD, e.g. 100 or 0.25")
    .option("--account <account>", "account (required)")
    .option("--member <email>", "a member of the account: the budget covers the keys they created")
    .option("--period <period>", "day, week or month (calendar periods in UTC), or total", "month")
    .action((usd: string, opts: LevelOptions & { period: string }, cmd: Command) => {
      const account = requireAccount(opts);
      const amount = budgetUsd(usd);
      const period = periodOf(opts.period);
      return withStore(cmd, async (store) => {
        const b = await setBudget(store, { account, member: opts.member ?? null, amount, period }, Date.now(), cliBy());
        output(cmd, b, `Budget of ${who(b)}: $${b.limit} ${per(b.period)} ($${b.spent} spent, $${b.remaining} remaining).`);
      });
    });

  budgets
    .command("remove")
    .description("remove the account's budget, or a member's")
    .option("--account <account>", "account (required)")
    .option("--member <email>", "the member whose budget goes")
    .action((opts: LevelOptions, cmd: Command) => {
      const account = requireAccount(opts);
      const member = opts.member ?? null;
      return withStore(cmd, async (store) => {
        await removeBudget(store, account, member, Date.now(), cliBy());
        output(cmd, { account, member, removed: true }, `Removed the budget of ${who({ account, member })}.`);
      });
    });

  budgets
    .command("list")
    .description("budgets with their spend in the current period and what remains")
    .option("--account <account>", "only this account")
    .action((opts: LevelOptions, cmd: Command) =>
      withStore(cmd, async (store) => {
        const rows = await listBudgets(store, opts.account === undefined ? undefined : accountOf(opts), Date.now());
        output(cmd, rows, listing(rows));
      }),
    );
}
