/**
 * Usage an upstream reports is the provider's bill (docs/limits.md, "Reported usage is the
 * provider's bill"): a count that is not a non-negative integer makes the answer invalid (that
 * endpoint failed); a count above a sanity ceiling no honest answer reaches is cut to it, the
 * reported count kept beside it for the ledger, so a provider's bug cannot bill an account 1e15
 * tokens or throw inside settlement. Neither the request's size nor the catalog's limits bound
 * it: server-side tools, files, URL context and cached content report far more prompt tokens
 * than a request carries, and betas widen a model's windows past what the catalog says.
 */
import type { ToolCalls, UnboundedCounts, Usage } from "../core/chat-request.js";
import type { CatalogModel } from "../store/index.js";
import { InvalidAnswer } from "../plugin/failure.js";

/** The largest window any model can be given today, betas included: Gemini's 2M context (Anthropic's 1M context and 128k output fit in it). */
const LARGEST_WINDOW = 2_000_000;
/** The ceiling is this many times the largest window: a count above it is a provider's bug, not a bill. */
const CEILING_FACTOR = 4;
/** Calls of one server-side tool in one answer: each search or fetch takes the provider seconds, so no answer makes this many. */
const TOOL_CALLS_CEILING = 10_000;
/** An adapter reports a handful of tool names; more is not an answer to bill. */
const TOOL_NAMES_MAX = 16;
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

function count(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidAnswer(`upstream usage ${field} is not a non-negative integer`);
  }
  return value;
}

/**
 * The most tokens of each kind (prompt; completion per choice) a reported usage is billed:
 * 4× the largest window the model can be given, or 4× the catalog's own limits when those are larger.
 */
function usageCeiling(model: Pick<CatalogModel, "contextLength" | "maxOutput">): number {
  return CEILING_FACTOR * Math.max(LARGEST_WINDOW, model.contextLength ?? 0, model.maxOutput ?? 0);
}

/** The reported usage, validated and cut to the sanity ceiling (completion per choice), the reported counts kept when cut. */
export function checkedUsage(u: Usage, model: Pick<CatalogModel, "contextLength" | "maxOutput">, choices: number): Usage {
  const ceiling = usageCeiling(model);
  count(u.prompt_tokens, "prompt_tokens");
  count(u.completion_tokens, "completion_tokens");
  return boundedUsage(u, ceiling, ceiling * choices);
}

/**
 * Usage the gateway counted itself (no usage from the provider, a cut stream) bounded by what
 * the request could have produced (docs/limits.md, "Usage the gateway counts is bounded by the
 * request"). Null when nothing was over: the usage stands as it is.
 */
export function cappedUsage(u: Usage, promptMax: number, completionMax: number): Usage | null {
  if (u.prompt_tokens <= promptMax && u.completion_tokens <= completionMax) return null;
  return boundedUsage(u, promptMax, completionMax);
}

/** `u` with each count at most its bound; `unbounded` says what was there before when one was cut. */
function boundedUsage(u: Usage, promptMax: number, completionMax: number): Usage {
  const prompt = Math.min(u.prompt_tokens, promptMax);
  const completion = Math.min(u.completion_tokens, completionMax);
  const calls = u.tool_calls && checkedCalls(u.tool_calls);
  const out: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...checkedDetails(u, prompt, completion) };
  if (calls?.billed) out.tool_calls = calls.billed;
  // A usage checked again (a stream's) keeps the first report.
  const cut = prompt < u.prompt_tokens || completion < u.completion_tokens || calls?.cut;
  const unbounded = u.unbounded ?? (cut ? unboundedOf(u, calls?.cut ? calls.reported : undefined) : undefined);
  if (unbounded) out.unbounded = unbounded;
  return out;
}

function unboundedOf(u: Usage, calls: ToolCalls | undefined): UnboundedCounts {
  return { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, ...(calls && { tool_calls: calls }) };
}

/** Per-call counts: each a count under a known name (else the answer is invalid), zeros dropped, each at most TOOL_CALLS_CEILING. */
function checkedCalls(calls: ToolCalls): { billed: ToolCalls | undefined; reported: ToolCalls; cut: boolean } {
  const names = Object.keys(calls);
  if (names.length > TOOL_NAMES_MAX) throw new InvalidAnswer(`upstream usage reports ${names.length} kinds of tool calls`);
  const billed: ToolCalls = {};
  const reported: ToolCalls = {};
  let cut = false;
  for (const name of names) {
    if (!TOOL_NAME.test(name)) throw new InvalidAnswer("upstream usage names a tool call that is not a tool name");
    const n = count(calls[name], `tool_calls.${name}`);
    if (n === 0) continue;
    reported[name] = n;
    billed[name] = Math.min(n, TOOL_CALLS_CEILING);
    cut ||= n > TOOL_CALLS_CEILING;
  }
  return { billed: Object.keys(billed).length ? billed : undefined, reported, cut };
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
