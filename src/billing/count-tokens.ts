/**
 * count_tokens on the Anthropic and Google surfaces (docs/messages.md, "count_tokens";
 * docs/gemini.md, "countTokens"): never billed and no ledger row, but no longer free to abuse.
 * - Admitted as the model's requests are: the prompt's worst case (its byte bound at the
 *   dearest endpoint's prompt price, no output) is held and released at once, so an account
 *   or key whose requests to the model would get the 402 gets the same 402 here, before the
 *   provider is asked or the gateway counts anything.
 * - The gateway's own count tokenizes at most COUNT_EXACT_CHARS characters (~6 ms of one core)
 *   and scales the rest at the rate that part showed (billing/tokens.ts estimatePromptTokens).
 * One module both endpoints call, so it moves with count_tokens into the pipeline.
 */
import type { Route } from "../catalog/catalog.js";
import type { ChatRequest } from "../core/chat-request.js";
import { costOf } from "../core/money.js";
import type { KeyRecord, Store } from "../store/index.js";
import { holdWorstCase, worstTokens } from "./bill.js";
import { pricesOf } from "./prices.js";
import { estimatePromptTokens } from "./tokens.js";

/** Characters the gateway's estimate puts through the tokenizer, at most, per count. */
export const COUNT_EXACT_CHARS = 64 * 1024;

/** Throws the 402 the model's requests would get when the balance or a budget cannot cover the prompt; holds nothing after. */
export async function admitCount(store: Store, key: KeyRecord, route: Route, chat: ChatRequest, requestId: string, now: number): Promise<void> {
  const bill = await holdWorstCase(store, key, route, () => costOf(pricesOf(route), worstTokens(chat, route).prompt, 0), requestId, now);
  await bill.release();
}

/** The gateway's estimate of the request's prompt tokens, tool definitions included. */
export function estimateCount(chat: ChatRequest): Promise<number> {
  return estimatePromptTokens(chat.messages, chat.tools ? JSON.stringify(chat.tools) : "", COUNT_EXACT_CHARS);
}
