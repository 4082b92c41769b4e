/**
 * The 402 of a hold the balance or a budget cannot cover (docs/billing.md "402"): which limit
 * refused (the balance, or the account's, the member's or the key's budget, with its period), what the request may cost, and, when its worst case comes from an output
 * budget, the largest `max_tokens` the money left can pay for, found with the same cost
 * function the hold used (core/money.ts costOf), so the number is exact: one token more is
 * refused, that many is admitted.
 */
import type { BudgetLevel, BudgetPeriod } from "../core/budget-periods.js";
import { insufficientCredits, type GatewayError } from "../core/errors.js";
import { costOf, nanoToUsd, type Prices } from "../core/money.js";
import type { KeyRecord, Store } from "../store/index.js";
import { levelsOf, tightest, type LevelUse } from "./budget-holds.js";

/** The output a request asks for: its worst case is the prompt bound plus `maxTokens` per choice. */
export interface OutputAsk {
  promptTokens: number;
  /** Per choice: max_tokens, or the model's output limit when the request set none. */
  maxTokens: number;
  n: number;
  /** The request set max_tokens (else the limit is the model's). */
  requested: boolean;
}

/** The largest max_tokens whose worst case fits `available` nano-USD; -1 when the prompt alone does not. */
function affordableMaxTokens(prices: Prices, ask: OutputAsk, available: bigint): number {
  const fits = (tokens: number) => BigInt(costOf(prices, ask.promptTokens, tokens * ask.n)) <= available;
  if (!fits(0)) return -1;
  let lo = 0; // fits
  let hi = ask.maxTokens; // the asked amount does not fit, or the refusal is not about output
  if (fits(hi)) return hi;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** `: it asks for up to N tokens (max_tokens) ...` for the limit that refused, when the request asks for output. */
function outputClause(prices: Prices, ask: OutputAsk | undefined, available: bigint, payer: string): string {
  if (!ask) return ".";
  const most = affordableMaxTokens(prices, ask, available);
  const what = `${ask.maxTokens} tokens (${ask.requested ? "max_tokens" : "the model's output limit; max_tokens was not set"})${ask.n > 1 ? ` for each of ${ask.n} choices` : ""}`;
  if (most < 0) return `: it asks for up to ${what}, and ${payer} does not cover even its prompt.`;
  return `: it asks for up to ${what}, but ${payer} can pay for at most ${most}.`;
}

const OWNER: Record<BudgetLevel, string> = {
  account: "the account's budget",
  member: "the budget of the member who created this API key",
  key: "this API key's budget",
};
const per = (period: BudgetPeriod) => (period === "total" ? "in total" : `per ${period}`);

/**
 * The command that raises the budget that refused (docs/limits.md "Budgets"): who may run it is
 * the operator's or an account admin's business, the client learns what to ask for. The member's
 * email stays out: the key's user may not be that member.
 */
function raiseBudget(key: KeyRecord, l: LevelUse): string {
  if (l.level === "key") return `gateway keys update ${key.id} --budget <usd>`;
  const member = l.level === "member" ? " --member <email of the key's creator>" : "";
  return `gateway budgets set <usd> --account ${key.account}${member} --period ${l.period}`;
}

/** What is held beside the spend: requests in flight count against the budget too. */
const held = (l: LevelUse) => {
  const h = l.limit - l.spent - l.left;
  return h > 0n ? `, $${nanoToUsd(h)} held by requests in flight` : "";
};

/** A budget refused: which, its limit, period, spend and room, and its own fix; the balance's only when it is short too. */
function budgetRefusal(key: KeyRecord, l: LevelUse, worst: number, balance: bigint, prices: Prices, ask?: OutputAsk): GatewayError {
  const state = `${OWNER[l.level]} has $${nanoToUsd(l.left)} left of $${nanoToUsd(l.limit)} ${per(l.period)} ($${nanoToUsd(l.spent)} spent${held(l)})`;
  const fix = `Raise the budget (${raiseBudget(key, l)})${ask ? " or lower max_tokens" : ""}.`;
  const alsoBalance = balance < BigInt(worst) ? ` The balance ($${nanoToUsd(balance)}) is short too: add funds (gateway credits add).` : "";
  return insufficientCredits(
    `This request may cost up to $${nanoToUsd(worst)} and ${state}${outputClause(prices, ask, l.left, "the budget")} ${fix}${alsoBalance}`,
    l.level,
  );
}

/**
 * The 402 says which limit refused: of the budgets without room for the worst case, the one with
 * the least left (its level is the error's `param` under compat openai), else the balance.
 */
export async function refusal(store: Store, key: KeyRecord, prices: Prices, worst: number, now: number, ask?: OutputAsk): Promise<GatewayError> {
  const short = tightest((await levelsOf(store, key, now)).filter((l) => l.left < BigInt(worst)));
  const balance = (await store.balance(key.account)) ?? 0n;
  if (short) return budgetRefusal(key, short, worst, balance, prices, ask);
  return insufficientCredits(
    `This request may cost up to $${nanoToUsd(worst)} and the balance is $${nanoToUsd(balance)}${outputClause(prices, ask, balance, "the balance")} ` +
      "Add funds (gateway credits add), lower max_tokens, or set a BYOK key for this provider.",
  );
}
