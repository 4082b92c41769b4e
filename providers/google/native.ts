/**
 * Google's generateContent API natively (docs/gemini.md): the client's body goes byte for
 * byte to `models/{model}:generateContent`, `:streamGenerateContent?alt=sse` or
 * `:countTokens` (https://ai.google.dev/api/generate-content, https://ai.google.dev/api/tokens),
 * and the answer back as it came. The gateway only reads it: usageMetadata through the same
 * usageOf as the translated path (cached and thought tokens at their own prices, grounding's
 * searches as per-call counts), the text for an estimate of a cut stream.
 */
import { readAnswer, type CallContext, type NativeGemini, type UpstreamRequest } from "../../src/plugin/contract.js";
import { z } from "zod";
import { responseSchema } from "./answer-schema.js";
import { groundingCalls, textOf, usageOf, withCalls } from "./response.js";
import { headers, resource, root } from "./url.js";

const countSchema = z.object({ totalTokens: z.number().int().nonnegative().nullish() });

function call(method: string, body: string, ctx: CallContext): UpstreamRequest {
  return {
    url: `${root(ctx.settings)}/${resource(ctx.model)}:${method}`,
    headers: { "content-type": "application/json", ...headers(ctx.apiKey) },
    body,
  };
}

export const nativeGemini: NativeGemini = {
  request: (body, ctx) => call(ctx.stream ? "streamGenerateContent?alt=sse" : "generateContent", body, ctx),
  read(json) {
    const answer = readAnswer(responseSchema, json, "google GenerateContentResponse");
    const text = (answer.candidates ?? []).map((c) => textOf(c.content?.parts ?? []) ?? "").join("");
    const usage = usageOf(answer.usageMetadata);
    const toolCalls = groundingCalls(answer.candidates ?? []);
    return { text, ...(usage && { usage: withCalls(usage, toolCalls) }), ...(toolCalls && { toolCalls }) };
  },
  countTokens: (body, ctx) => call("countTokens", body, ctx),
  // proto3 JSON leaves out a zero count.
  countTokensResponse: (json) => readAnswer(countSchema, json, "google countTokens").totalTokens ?? 0,
};
