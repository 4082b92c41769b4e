/**
 * What both price-list readers share (catalog/price-list.ts): one model's price in the catalog's
 * terms, and exact conversion of a list's USD amounts to nano-USD per 1M tokens.
 */
import { usdToNano } from "../core/money.js";
import type { ModelPrice } from "../store/index.js";

/** One model's price as a list gives it, in the catalog's terms (nano-USD per 1M tokens, token limits or null). */
export type ListedPrice = Omit<ModelPrice, "origin" | "source" | "updatedAt"> & {
  /** The list has a higher price above some prompt size; this is the base tier's. */
  tiered: boolean;
};

/** A list's raw figures for one model: USD (per token or per 1M) and token limits, as the list writes them. */
export interface RawPrice {
  prompt: unknown;
  completion: unknown;
  cacheRead: unknown;
  cacheWrite: unknown;
  context: unknown;
  output: unknown;
  tiered: boolean;
}

/** The catalog's price from a list's figures (USD per token when `shift` is 6, per 1M when 0); undefined when not exactly priced or priced 0. */
export function listedPrice(id: string, raw: RawPrice, shift: 0 | 6): ListedPrice | undefined {
  const prompt = listPrice(raw.prompt, shift);
  const completion = listPrice(raw.completion, shift);
  if (prompt === undefined || completion === undefined || prompt + completion === 0) return undefined;
  return {
    id,
    prompt,
    completion,
    cacheRead: listPrice(raw.cacheRead, shift) ?? null,
    cacheWrite: listPrice(raw.cacheWrite, shift) ?? null,
    contextLength: tokenLimit(raw.context),
    maxOutput: tokenLimit(raw.output),
    tiered: raw.tiered,
  };
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
function listPrice(usd: unknown, shift: 0 | 6): number | undefined {
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
const tokenLimit = (n: unknown): number | null => (typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null);
