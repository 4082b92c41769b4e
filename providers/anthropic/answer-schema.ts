/**
 * The fields this adapter reads from Anthropic's answers, as zod schemas: a Messages API
 * `message`, each stream event it acts on, and the model list. Other fields, block types and
 * event types pass unread. An answer that breaks them is a 502 upstream_invalid_response
 * (docs/limits.md). Shapes as vercel/ai's anthropic-messages-api.ts reads them.
 */
import { z } from "zod";
import { knownTypes } from "../../src/plugin/contract.js";

const count = z.number().nullish();

export const usageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
  /** Server tools run per request (`web_search_requests`, `web_fetch_requests`): per-call fees (docs/billing.md). */
  server_tool_use: z.record(z.string(), z.unknown()).nullish(),
});
export type WireUsage = z.infer<typeof usageSchema>;

const text = z.object({ type: z.literal("text"), text: z.string() });
const toolUse = z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown().optional() });

export const messageSchema = z.object({
  id: z.string().nullish(),
  content: z.array(knownTypes([text, toolUse])),
  stop_reason: z.string().nullish(),
  usage: usageSchema.nullish(),
});

const index = z.number().int().nonnegative();

export const eventSchema = knownTypes([
  z.object({ type: z.literal("message_start"), message: z.object({ usage: usageSchema.nullish() }) }),
  z.object({
    type: z.literal("content_block_start"),
    index,
    content_block: knownTypes([text, z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string() })]),
  }),
  z.object({
    type: z.literal("content_block_delta"),
    index,
    delta: knownTypes([
      z.object({ type: z.literal("text_delta"), text: z.string() }),
      z.object({ type: z.literal("input_json_delta"), partial_json: z.string() }),
    ]),
  }),
  z.object({ type: z.literal("content_block_stop"), index }),
  z.object({ type: z.literal("message_delta"), delta: z.object({ stop_reason: z.string().nullish() }), usage: usageSchema.nullish() }),
  z.object({ type: z.literal("message_stop") }),
  z.object({ type: z.literal("error"), error: z.object({ type: z.string() }) }),
]);
export type WireEvent = z.infer<typeof eventSchema>;

export const modelListSchema = z.object({
  data: z.array(z.object({ id: z.string(), max_input_tokens: z.number().nullish(), max_tokens: z.number().nullish() })),
});
