/**
 * What a chat request could cost in tokens, without a tokenizer on the hot path: the prompt's
 * upper bound and the output budget the hold reserves for (bill.ts), and the most a request can
 * have produced, which bounds usage the gateway counts itself (docs/limits.md, "Usage the gateway
 * counts is bounded by the request").
 */
import { requestedMaxTokens } from "../core/content.js";
import type { Route } from "../catalog/catalog.js";
import type { ChatRequest } from "../core/chat-request.js";

/** Output budget when neither the request nor the catalog bounds it. */
const DEFAULT_MAX_OUTPUT = 4096;
/** Role and framing tokens a chat template adds per message, generously. */
const PER_MESSAGE_OVERHEAD = 16;
/**
 * Tokens one image may cost, above every provider's published maximum (OpenAI high detail
 * 1,445 tiles-based, ~2,500 patch-based; Anthropic ~1,600; Gemini 258 per tile). The URL's
 * bytes are not counted: a data URL's base64 is not what the model reads.
 */
const IMAGE_TOKENS_MAX = 3000;

/**
 * An upper bound on prompt tokens without running a tokenizer on the hot path: a BPE
 * token is at least one byte, so UTF-8 bytes plus template overhead cannot be exceeded.
 */
export function promptUpperBound(body: ChatRequest): number {
  let bytes = PER_MESSAGE_OVERHEAD;
  for (const m of body.messages) {
    bytes += PER_MESSAGE_OVERHEAD;
    if (typeof m.content === "string") bytes += Buffer.byteLength(m.content);
    else if (m.content) for (const p of m.content) bytes += p.type === "text" ? Buffer.byteLength(p.text) : IMAGE_TOKENS_MAX;
    if (m.name) bytes += Buffer.byteLength(m.name);
    for (const t of m.tool_calls ?? []) bytes += Buffer.byteLength(t.function.name) + Buffer.byteLength(t.function.arguments) + PER_MESSAGE_OVERHEAD;
  }
  // Tool definitions and a response schema reach the model as prompt text too.
  if (body.tools) bytes += Buffer.byteLength(JSON.stringify(body.tools));
  if (body.response_format?.type === "json_schema") bytes += Buffer.byteLength(JSON.stringify(body.response_format.json_schema));
  return bytes;
}

/**
 * Prompt tokens a provider may add beyond what the gateway sees (a tool-use system prompt,
 * Anthropic's is ~350; template tokens of its own): the bound below must never cut an honest
 * count, only an absurd one (the hold stays the byte bound alone: it decides admission only).
 */
const PROMPT_SLACK = 4_096;

/**
 * The most usage a chat request can have produced, for billing what the gateway counts itself
 * (docs/limits.md; reported usage is the provider's bill, billing/usage-check.ts): prompt by its
 * input's bytes plus PROMPT_SLACK, completion by what the request asked for (`max_tokens`, else
 * the model's output limit), per choice (no bound when neither is known).
 */
export function usageBound(body: ChatRequest, route: Route): { prompt: number; completion: number } {
  const perChoice = requestedMaxTokens(body) ?? route.model.maxOutput ?? Infinity;
  return { prompt: promptUpperBound(body) + PROMPT_SLACK, completion: perChoice * (body.n ?? 1) };
}

/** A chat request's worst case in tokens (the hold's), for ordering endpoints by price (upstream/preferences.ts). */
export function worstTokens(body: ChatRequest, route: Route): { prompt: number; completion: number } {
  return { prompt: promptUpperBound(body), completion: outputBudget(body, route) * (body.n ?? 1) };
}

/** Output tokens one choice may produce: what billing reserves for and what adapters ask for. */
export function outputBudget(body: ChatRequest, route: Route): number {
  return requestedMaxTokens(body) ?? route.model.maxOutput ?? route.model.contextLength ?? DEFAULT_MAX_OUTPUT;
}
