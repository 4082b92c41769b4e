/**
 * Exact money. Amounts are integer nano-USD (1e-9 USD); prices are integer nano-USD per
 * 1M tokens, so every published price (down to $0.001 per 1M) is exact. A request's cost
 * is rounded up to the unit once, computed in BigInt so no product can lose precision.
 */
const NANO_DIGITS = 9;
const TOKENS_PER_PRICE_UNIT = 1_000_000n;

/** "12.5" / 12.5 USD -> 12_500_000_000 nano-USD. Rejects more than 9 decimals, negatives, NaN. */
export function usdToNano(value: string | number): number {
  const text = typeof value === "number" ? numberToDecimal(value) : value.trim();
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`not a non-negative decimal amount: ${String(value)}`);
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > NANO_DIGITS) throw new RangeError(`more than ${NANO_DIGITS} decimals: ${String(value)}`);
  const nano = BigInt(match[1]!) * 10n ** BigInt(NANO_DIGITS) + BigInt(fraction.padEnd(NANO_DIGITS, "0") || "0");
  if (nano > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount too large: ${String(value)}`);
  return Number(nano);
}

function numberToDecimal(n: number): string {
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`not a non-negative amount: ${n}`);
  // toString gives the shortest round-trip form; expand exponent forms like 1e-7.
  const s = n.toString();
  return s.includes("e") ? n.toFixed(NANO_DIGITS + 6).replace(/0+$/, "").replace(/\.$/, "") : s;
}

/** 12_500_000_000 -> "12.5"; always exact. */
export function nanoToUsd(nano: number): string {
  const sign = nano < 0 ? "-" : "";
  const abs = BigInt(Math.abs(nano));
  const whole = abs / 10n ** BigInt(NANO_DIGITS);
  const fraction = (abs % 10n ** BigInt(NANO_DIGITS)).toString().padStart(NANO_DIGITS, "0").replace(/0+$/, "");
  return `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
}

export interface Prices {
  /** nano-USD per 1M tokens */
  prompt: number;
  completion: number;
}

/** cost = prompt × prompt price + completion × completion price, rounded up to 1 nano-USD. */
export function costOf(prices: Prices, promptTokens: number, completionTokens: number): number {
  const scaled = BigInt(promptTokens) * BigInt(prices.prompt) + BigInt(completionTokens) * BigInt(prices.completion);
  return Number((scaled + TOKENS_PER_PRICE_UNIT - 1n) / TOKENS_PER_PRICE_UNIT);
}
