/**
 * Reading `@pydantic/genai-prices` (the price data Pydantic maintains) the one way both
 * bundled sources use it: an entry counts only where its match rule names an exact API model
 * id (a `contains`/`starts_with` rule names a family, not a model) and a price only when it is
 * one flat USD-per-1M number (tiered prices are objects: not exact per token).
 */
import { findProvider } from "@pydantic/genai-prices";
import { usdToNano } from "../core/money.js";

interface Match {
  equals?: string;
  or?: Match[];
}

export interface PriceModel {
  id: string;
  match: Match;
  context_window?: number;
  prices?: { input_mtok?: unknown; output_mtok?: unknown; cache_read_mtok?: unknown; cache_write_mtok?: unknown };
}

/** The models genai-prices lists for one of its provider ids. */
export function priceModels(providerId: string): PriceModel[] {
  return (findProvider({ providerId }) as { models?: PriceModel[] } | undefined)?.models ?? [];
}

const exactIds = (m: Match): string[] => (m.equals ? [m.equals] : (m.or ?? []).flatMap(exactIds));

/** The entry's own id when its rule names it exactly (its aliases are answer names), else the first exact id. */
export function exactId(m: PriceModel): string | undefined {
  const ids = exactIds(m.match);
  return ids.includes(m.id) ? m.id : ids[0];
}

/** A flat USD-per-1M price in nano-USD per 1M, or undefined (tiered, missing, finer than 1e-9 USD). */
export function flatPrice(value: unknown): number | undefined {
  if (typeof value !== "number") return undefined;
  try {
    return usdToNano(value);
  } catch {
    return undefined;
  }
}
