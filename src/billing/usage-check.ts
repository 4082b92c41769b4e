/**
 * Usage as an upstream reports it is not trusted as sent (docs/limits.md): a count that is
 * not a non-negative integer makes the answer invalid (that endpoint failed), and an absurd
 * one is bounded by the model's limits, so a provider's bug cannot bill an account 1e15
 * tokens or throw inside settlement.
 */
import type { Usage } from "../core/chat-request.js";
import type { CatalogModel } from "../store/index.js";
import { InvalidAnswer } from "../plugin/failure.js";

/** Bound for a model whose limits the catalog does not know. */
const UNKNOWN_LIMIT = 10_000_000;

function count(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidAnswer(`upstream usage ${field} is not a non-negative integer`);
  }
  return value;
}

/** The usage, validated and bounded: prompt by the context window, completion by the output limit per choice. */
export function checkedUsage(u: Usage, model: Pick<CatalogModel, "contextLength" | "maxOutput">, choices: number): Usage {
  const prompt = Math.min(count(u.prompt_tokens, "prompt_tokens"), model.contextLength ?? UNKNOWN_LIMIT);
  const perChoice = Math.max(model.maxOutput ?? 0, model.contextLength ?? 0) || UNKNOWN_LIMIT;
  const completion = Math.min(count(u.completion_tokens, "completion_tokens"), perChoice * choices);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...checkedDetails(u, prompt, completion) };
}

/**
 * Usage bounded by what the request could have produced (docs/limits.md, "Usage is bounded by
 * the request"): prompt tokens by its input's upper bound, completion tokens by its output
 * budget. Null when nothing was over: the usage stands as it is.
 */
export function cappedUsage(u: Usage, promptMax: number, completionMax: number): Usage | null {
  if (u.prompt_tokens <= promptMax && u.completion_tokens <= completionMax) return null;
  const prompt = Math.min(u.prompt_tokens, promptMax);
  const completion = Math.min(u.completion_tokens, completionMax);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...checkedDetails(u, prompt, completion) };
}

/**
 * The parts billed at their own prices, each a count (else the answer is invalid) and bounded
 * by its total: cache reads plus writes by the prompt (a write is billed first, it usually
 * costs more), reasoning by the completion. So a part can never be billed twice or turn a cost negative.
 */
function checkedDetails(u: Usage, prompt: number, completion: number): Partial<Usage> {
  const out: Partial<Usage> = {};
  const write = u.cache_write_tokens === undefined ? undefined : Math.min(count(u.cache_write_tokens, "cache write tokens"), prompt);
  const cached = u.prompt_tokens_details?.cached_tokens;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (write) out.cache_write_tokens = write;
  if (cached !== undefined) {
    const read = Math.min(count(cached, "prompt_tokens_details.cached_tokens"), prompt - (write ?? 0));
    if (read) out.prompt_tokens_details = { cached_tokens: read };
  }
  if (reasoning !== undefined) {
    const r = Math.min(count(reasoning, "completion_tokens_details.reasoning_tokens"), completion);
    if (r) out.completion_tokens_details = { reasoning_tokens: r };
  }
  return out;
}
