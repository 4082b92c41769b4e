/**
 * Exact money. Amounts are integer nano-USD (1e-9 USD); prices are integer nano-USD per
 * 1M tokens (per 1,000 calls for a server-side tool's fee), so every published price (down to
 * $0.001 per 1M) is exact.
 *
 * Two sizes, on purpose:
 * - Balances, credit amounts and sums are BigInt, exact up to what a 64-bit SQLite INTEGER
 *   holds (MAX_NANO, about $9.2 billion); beyond that they are refused, never rounded.
 * - Prices and one request's cost are plain numbers, so the per-request path stays cheap.
 *   A price is at most 2^53-1 nano-USD per 1M tokens (usdToNano refuses more), and one
 *   request's cost is capped at 2^53-1 nano-USD ($9,007,199.254740991): no real price list
 *   comes near it (it takes millions of tokens at $1M per 1M), and the cap only ever makes a
 *   worst-case hold smaller than an impossible amount.
 */
const NANO_DIGITS = 9;
const NANO_PER_USD = 10n ** BigInt(NANO_DIGITS);
const TOKENS_PER_PRICE_UNIT = 1_000_000n;
/** A per-call price is per 1,000 calls: one call is 1,000 of costOf's millionths of it. */
const CALLS_PER_PRICE_UNIT_SCALE = TOKENS_PER_PRICE_UNIT / 1_000n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The largest amount a balance (a signed 64-bit SQLite INTEGER) can hold: 9223372036.854775807 USD. */
export const MAX_NANO = 9_223_372_036_854_775_807n;

/** A credit that would take a balance past MAX_NANO: refused, the balance unchanged. */
export class BalanceOverflowError extends RangeError {
  constructor(account: string) {
    super(`the balance of '${account}' would exceed the maximum of ${nanoToUsd(MAX_NANO)} USD`);
    this.name = "BalanceOverflowError";
  }
}

/** "12.5" / 12.5 USD -> 12_500_000_000n nano-USD, exact up to MAX_NANO. Rejects more than 9 decimals, negatives, NaN. */
export function usdToNanoExact(value: string | number): bigint {
  const text = typeof value === "number" ? numberToDecimal(value) : value.trim();
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`not a non-negative decimal amount: ${String(value)}`);
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > NANO_DIGITS) throw new RangeError(`more than ${NANO_DIGITS} decimals: ${String(value)}`);
  const nano = BigInt(match[1]!) * NANO_PER_USD + BigInt(fraction.padEnd(NANO_DIGITS, "0") || "0");
  if (nano > MAX_NANO) throw new RangeError(`amount too large: ${String(value)} (at most ${nanoToUsd(MAX_NANO)} USD)`);
  return nano;
}

/** A price or small amount as a number of nano-USD; refuses what a number cannot hold exactly. */
export function usdToNano(value: string | number): number {
  const nano = usdToNanoExact(value);
  if (nano > MAX_SAFE) throw new RangeError(`amount too large: ${String(value)} (at most ${nanoToUsd(MAX_SAFE)} USD here)`);
  return Number(nano);
}

function numberToDecimal(n: number): string {
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`not a non-negative amount: ${n}`);
  // toString gives the shortest round-trip form; expand exponent forms like 1e-7.
  const s = n.toString();
  return s.includes("e")
    ? n
        .toFixed(NANO_DIGITS + 6)
        .replace(/0+$/, "")
        .replace(/\.$/, "")
    : s;
}

/** 12_500_000_000 (or 12_500_000_000n) -> "12.5"; always exact. */
export function nanoToUsd(nano: number | bigint): string {
  const big = BigInt(nano);
  const sign = big < 0n ? "-" : "";
  const abs = big < 0n ? -big : big;
  const fraction = (abs % NANO_PER_USD).toString().padStart(NANO_DIGITS, "0").replace(/0+$/, "");
  return `${sign}${abs / NANO_PER_USD}${fraction ? `.${fraction}` : ""}`;
}

export interface Prices {
  /** nano-USD per 1M tokens */
  prompt: number;
  completion: number;
  /** Prompt tokens read from the provider's cache; absent: billed at the prompt price (docs/billing.md). */
  cacheRead?: number | null;
  /** Prompt tokens written to the provider's cache; absent: billed at the prompt price. */
  cacheWrite?: number | null;
  /** nano-USD per 1,000 calls of a server-side tool, by name (docs/billing.md); a name without a price costs 0. */
  toolCalls?: Readonly<Record<string, number>> | null;
}

/** Parts of the prompt billed at their own prices; both are inside promptTokens. */
export interface CacheTokens {
  read?: number;
  write?: number;
}

/**
 * cost = uncached prompt × prompt price + cache reads × cache_read price + cache writes ×
 * cache_write price + completion × completion price (reasoning tokens are completion tokens),
 * rounded up to 1 nano-USD once, computed in BigInt so no product loses precision; capped at
 * 2^53-1 (see the top of this file). Cache counts are inside promptTokens (billing/usage-check.ts).
 */
export function costOf(
  prices: Prices,
  promptTokens: number,
  completionTokens: number,
  cache: CacheTokens = {},
  calls?: Readonly<Record<string, number>>,
): number {
  const read = BigInt(cache.read ?? 0);
  const write = BigInt(cache.write ?? 0);
  const uncached = BigInt(promptTokens) - read - write;
  const scaled =
    (uncached > 0n ? uncached : 0n) * BigInt(prices.prompt) +
    read * BigInt(prices.cacheRead ?? prices.prompt) +
    write * BigInt(prices.cacheWrite ?? prices.prompt) +
    BigInt(completionTokens) * BigInt(prices.completion) +
    (calls ? callsScaled(prices, calls) : 0n);
  return roundUp(scaled);
}

/**
 * Per-call fees in costOf's scale (nano-USD × 1M): a price per 1,000 calls × 1,000 per call, so
 * the fees join the token parts before the one rounding of the request (docs/billing.md).
 */
function callsScaled(prices: Prices, calls: Readonly<Record<string, number>>): bigint {
  let scaled = 0n;
  for (const [name, n] of Object.entries(calls)) scaled += BigInt(n) * BigInt(prices.toolCalls?.[name] ?? 0) * CALLS_PER_PRICE_UNIT_SCALE;
  return scaled;
}

/** The per-call fees alone, rounded up once: the ledger's `tool_cost` (inside the request's cost). */
export function callsCost(prices: Prices, calls: Readonly<Record<string, number>>): number {
  return roundUp(callsScaled(prices, calls));
}

function roundUp(scaled: bigint): number {
  const cost = (scaled + TOKENS_PER_PRICE_UNIT - 1n) / TOKENS_PER_PRICE_UNIT;
  return cost > MAX_SAFE ? Number.MAX_SAFE_INTEGER : Number(cost);
}
