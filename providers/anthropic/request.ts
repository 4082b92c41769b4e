/** A ChatRequest as a Messages API body (POST /v1/messages). */
import { unsupported, type CallContext } from "../../src/provider.js";
import type { ChatRequest } from "../../src/schema.js";
import { defaultMaxTokens } from "./max-tokens.js";
import { toConversation } from "./messages.js";

export function toMessagesBody(req: ChatRequest, ctx: CallContext): Record<string, unknown> {
  rejectUnsupported(req);
  const body: Record<string, unknown> = {
    model: ctx.model,
    max_tokens: req.max_tokens ?? defaultMaxTokens(ctx),
    ...toConversation(req.messages),
  };
  // Anthropic accepts 0..1 where api.md allows 0..2: clamped, not rejected.
  if (req.temperature !== undefined) body.temperature = Math.min(Math.max(req.temperature, 0), 1);
  if (req.top_p !== undefined) body.top_p = req.top_p;
  if (req.stop !== undefined) body.stop_sequences = [req.stop].flat();
  // Streams always carry usage (message_start, message_delta): nothing to ask for.
  if (ctx.stream) body.stream = true;
  return body;
}

/**
 * Parameters Anthropic cannot honour are a 400, never dropped. `seed` is the exception:
 * api.md defines it as best-effort, and Anthropic has no seed, so it is ignored.
 */
function rejectUnsupported(req: ChatRequest): void {
  if ((req.n ?? 1) > 1) throw unsupported("n", "Anthropic returns one choice per request; send n: 1 or leave it out.");
  for (const field of ["frequency_penalty", "presence_penalty"] as const) {
    if (req[field]) throw unsupported(field, "Anthropic has no such penalty; send 0 or leave it out.");
  }
}
