/** Thresholds (docs/alerts.md): which percentages of a budget its spend has reached, exactly (BigInt). */
import type { BudgetLevel } from "./levels.js";

export const DEFAULT_PERCENTS: readonly number[] = [50, 80, 100];

/** A budget's 100 %: reached by spend, or by a request the budget refused (src/alerts/detect.ts). */
export const FULL_PERCENT = 100;

/** The percentages whose share of the limit the spend has reached; none for a zero limit (nothing may be spent). */
export function crossedPercents(level: Pick<BudgetLevel, "limit" | "spent">, percents: readonly number[]): number[] {
  if (level.limit <= 0n) return [];
  return percents.filter((p) => level.spent * 100n >= level.limit * BigInt(p));
}

/** `--percent 50,80,100`: whole percentages from 1 to 1000, ascending, each once; undefined when malformed. */
export function parsePercents(text: string): number[] | undefined {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.some((p) => !/^\d{1,4}$/.test(p))) return undefined;
  const values = [...new Set(parts.map(Number))].sort((a, b) => a - b);
  return values.every((v) => v >= 1 && v <= 1000) && values.length > 0 && values.length <= 10 ? values : undefined;
}
