/**
 * /v1/responses to a provider with its own Responses API (OpenAI, Azure OpenAI; the plugin's
 * `native.responses`, sent by the pipeline's native step, pipeline/native.ts), docs/responses.md "Native or translated": the request goes as the client sent
 * it, but with the upstream model name, the whole conversation as `input` and `store: false`
 * (the gateway keeps the stored responses itself, so `previous_response_id` means the same on
 * every route); the answer and every stream event come back unchanged but for the response's
 * id, model, `store`, `previous_response_id` and usage, which are the gateway's record.
 */
import { z } from "zod";
import type { Route } from "../../catalog/catalog.js";
import type { ToolCalls, Usage } from "../../core/chat-request.js";
import { nativeRoute } from "../../pipeline/native.js";
import { readAnswer } from "../../plugin/answer.js";
import { responseUsage } from "./render.js";
import type { InputItem, ResponsesRequest } from "./schema.js";

/** A route is served natively when every endpoint it may fail over to has a Responses API; a mixed route is translated throughout. */
export const isNative = (route: Route): boolean => nativeRoute(route, "responses");

const NativeUsage = z.looseObject({
  input_tokens: z.number().int().min(0),
  input_tokens_details: z.looseObject({ cached_tokens: z.number().int().min(0).optional() }).nullish(),
  output_tokens: z.number().int().min(0),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.number().int().min(0).optional() }).nullish(),
});
type NativeUsage = z.infer<typeof NativeUsage>;

const NativeResponse = z.looseObject({ id: z.string(), object: z.literal("response"), output: z.array(z.unknown()), usage: NativeUsage.nullish() });
export type NativeResponse = z.infer<typeof NativeResponse>;

/** What the stored and answered response needs beyond the provider's (ids the gateway owns). */
export interface NativeHead {
  id: string;
  model: string;
  store: boolean;
  previousId: string | null;
}

/** The request as the provider gets it: the client's fields, the chain's items before this input, nothing stored upstream. */
export function nativeBody(req: ResponsesRequest, history: InputItem[], input: InputItem[], stream: boolean): Record<string, unknown> {
  const { previous_response_id: _p, ...rest } = req;
  const body: Record<string, unknown> = { ...rest, store: false, stream };
  // A reasoning item without its encrypted content cannot be replayed when nothing is stored upstream.
  const replayable = history.filter((i) => i.type !== "reasoning" || typeof i.encrypted_content === "string");
  if (history.length) body.input = [...replayable, ...input];
  if (!stream) delete body.stream_options;
  return body;
}

/** A JSON answer checked to be a Responses object. */
export function readNative(json: unknown): NativeResponse {
  return readAnswer(NativeResponse, json, "Responses answer");
}

/**
 * The Responses usage in the gateway's terms: cached input and reasoning output as their details,
 * and the hosted tools billed per call (docs/billing.md): each `web_search_call` and
 * `file_search_call` output item is one call of `web_search` / `file_search`.
 */
export function usageOf(r: Pick<NativeResponse, "usage" | "output">): Usage | undefined {
  const u = r.usage;
  if (!u) return undefined;
  const usage: Usage = { prompt_tokens: u.input_tokens, completion_tokens: u.output_tokens, total_tokens: u.input_tokens + u.output_tokens };
  const cached = u.input_tokens_details?.cached_tokens;
  if (cached) usage.prompt_tokens_details = { cached_tokens: cached };
  const reasoning = u.output_tokens_details?.reasoning_tokens;
  if (reasoning) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  const calls = hostedCalls(r.output);
  if (calls) usage.tool_calls = calls;
  return usage;
}

const PER_CALL = new Map<unknown, string>([
  ["web_search_call", "web_search"],
  ["file_search_call", "file_search"],
]);

function hostedCalls(output: readonly unknown[]): ToolCalls | undefined {
  let calls: ToolCalls | undefined;
  for (const item of output) {
    const tool = PER_CALL.get((item as { type?: unknown } | null)?.type);
    if (tool) (calls ??= {})[tool] = (calls[tool] ?? 0) + 1;
  }
  return calls;
}

/** The provider's response with the gateway's id, model, store flag, chain and billed usage. */
export function asGateways<R extends object>(r: R, head: NativeHead, usage: Usage | null): R {
  return { ...r, id: head.id, model: head.model, store: head.store, previous_response_id: head.previousId, ...(usage && { usage: responseUsage(usage) }) };
}
