/**
 * The usage object an answer shows (docs/billing.md): docs/http.md's three counts, plus
 * `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens` (the
 * OpenAI convention) when the provider reported a non-zero count; under every compat mode,
 * since clients read them as optional. Cache writes are billed but have no OpenAI field.
 */
import type { Usage } from "../../core/chat-request.js";

export function usageOut(u: Usage): Usage {
  const out: Usage = { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, total_tokens: u.total_tokens };
  if (u.prompt_tokens_details?.cached_tokens) out.prompt_tokens_details = { cached_tokens: u.prompt_tokens_details.cached_tokens };
  if (u.completion_tokens_details?.reasoning_tokens) out.completion_tokens_details = { reasoning_tokens: u.completion_tokens_details.reasoning_tokens };
  return out;
}
