/**
 * The Messages API spoken natively (docs/messages.md): POST /v1/messages routed here sends the
 * client's body unchanged but for `model`, with its `anthropic-version` and `anthropic-beta`;
 * POST /v1/messages/count_tokens is Anthropic's own count. Usage is read as the chat adapter
 * reads it (response.ts usageOf: cache reads and writes billed apart).
 */
import type { CallContext, MessagesHeaders, NativeMessages, UpstreamRequest } from "../../src/plugin/contract.js";
import { readAnswer } from "../../src/plugin/contract.js";
import { usageSchema } from "./answer-schema.js";
import { usageOf } from "./response.js";

function call(path: string, body: Record<string, unknown>, headers: MessagesHeaders, ctx: CallContext): UpstreamRequest {
  const out: Record<string, string> = { "content-type": "application/json", "anthropic-version": headers.version };
  if (ctx.apiKey) out["x-api-key"] = ctx.apiKey;
  if (headers.beta) out["anthropic-beta"] = headers.beta;
  return { url: `${ctx.settings.baseUrl.replace(/\/+$/, "")}${path}`, headers: out, body: JSON.stringify(body) };
}

export const nativeMessages: NativeMessages = {
  request: (body, headers, ctx) => call("/v1/messages", body, headers, ctx),
  countTokens: (body, headers, ctx) => call("/v1/messages/count_tokens", body, headers, ctx),
  usage: (wire) => usageOf(readAnswer(usageSchema, wire, "anthropic usage")),
};
