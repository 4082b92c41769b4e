/**
 * Anthropic requires `max_tokens`. Without one from the client, the adapter sends the output
 * budget billing reserved for (the catalog's output limit for the model, which the bundled
 * catalog knows for every Claude model), capped by the instance's `maxTokens` option.
 */
import type { CallContext } from "../../src/plugin/contract.js";

const FALLBACK_MAX_TOKENS = 4096;

/** `maxTokens` may arrive as a string through `${VAR}` interpolation; anything else invalid is a config error. */
function optionValue(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const value = typeof raw === "string" && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new Error("anthropic provider: the maxTokens option must be a positive integer");
  }
  return value;
}

export function defaultMaxTokens(ctx: Pick<CallContext, "settings" | "maxOutput">): number {
  const budget = ctx.maxOutput ?? FALLBACK_MAX_TOKENS;
  const cap = optionValue(ctx.settings.options.maxTokens);
  return cap === undefined ? budget : Math.min(cap, budget);
}
