/**
 * What both price-list readers share (catalog/price-list.ts): one model's price in the catalog's
 * terms, and exact conversion of a list's USD amounts to nano-USD per 1M tokens.
 */
import { usdToNano } from "../core/money.js";

/** One model's price as a list gives it, in the catalog's terms (nano-USD per 1M tokens). */
export interface ListedPrice {
  id: string;
  prompt: number;
  completion: number;
  cacheRead: number | null;
  cacheWrite: number | null;
  contextLength: number | null;
  maxOutput: number | null;
  /** The list has a higher price above some prompt size; this is the base tier's. */
  tiered: boolean;
}

/** What one reader makes of a list. */
export interface ReadPrices {
  entries: number;
  prices: ListedPrice[];
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A list price in USD (per token when `shift` is 6, per 1M tokens when 0) as exact nano-USD per 1M
 * tokens, or undefined (missing, negative, finer than 1e-9 USD per 1M). Shifted as decimal text,
 * not multiplied: 3e-6 × 1e6 is 3.0000000000000004 in floating point.
 */
export function listPrice(usd: unknown, shift: 0 | 6): number | undefined {
  if (typeof usd !== "number" || !Number.isFinite(usd) || usd < 0) return undefined;
  try {
    return usdToNano(shifted(usd, shift));
  } catch {
    return undefined;
  }
}

/** `n` × 10^shift as decimal text, from the number's shortest form (`1.25e-5`, `0.3`). */
function shifted(n: number, shift: number): string {
  const [mantissa, exponent = "0"] = n.toString().split("e");
  const [whole, fraction = ""] = mantissa!.split(".");
  const digits = `${whole}${fraction}`;
  const point = whole!.length + Number(exponent) + shift;
  if (point <= 0) return `0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + "0".repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A positive integer token limit, or null. */
export const tokenLimit = (n: unknown): number | null => (typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null);
