/**
 * The fields this adapter reads from Bedrock's Converse answers, as zod schemas: a Converse
 * response and each ConverseStream event it acts on (by the event-stream frame's name; other
 * events pass unread). Content blocks have no type field: the kinds it does not read
 * (reasoningContent, citations) pass as blocks without text or toolUse. An answer that breaks
 * them is a 502 upstream_invalid_response (docs/limits.md). Shapes as vercel/ai's
 * bedrock-api-types.ts and bedrock-chat-language-model.ts read them.
 */
import { z } from "zod";

const count = z.number().nullish();

const usageSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  cacheReadInputTokens: count,
  cacheWriteInputTokens: count,
});
export type WireUsage = z.infer<typeof usageSchema>;

const toolUse = z.object({ toolUseId: z.string(), name: z.string(), input: z.unknown().optional() });
export type WireToolUse = z.infer<typeof toolUse>;

export const converseSchema = z.object({
  output: z.object({ message: z.object({ content: z.array(z.object({ text: z.string().nullish(), toolUse: toolUse.nullish() })) }) }),
  stopReason: z.string().nullish(),
  usage: usageSchema.nullish(),
});

const index = z.number().int().nonnegative();

export const blockStartSchema = z.object({
  contentBlockIndex: index,
  start: z.object({ toolUse: z.object({ toolUseId: z.string(), name: z.string() }).nullish() }).nullish(),
});
export const blockDeltaSchema = z.object({
  contentBlockIndex: index,
  delta: z.object({ text: z.string().nullish(), toolUse: z.object({ input: z.string() }).nullish() }),
});
export type BlockStart = z.infer<typeof blockStartSchema>;
export type BlockDelta = z.infer<typeof blockDeltaSchema>;
export const blockStopSchema = z.object({ contentBlockIndex: index });
export const messageStopSchema = z.object({ stopReason: z.string() });
export const metadataSchema = z.object({ usage: usageSchema.nullish() });

/** Each vector is checked by the core in one pass (finite float32, lengths), not here per number. */
const vector = z.unknown().optional();
export const titanEmbeddingSchema = z.object({ embedding: vector, inputTextTokenCount: count });
/** Cohere Embed on Bedrock: a list, or by type when `embedding_types` was asked (float only is read). */
export const cohereEmbeddingsSchema = z.object({ embeddings: z.union([z.array(vector), z.object({ float: z.array(vector) })]) });

export const modelListSchema = z.object({
  modelSummaries: z.array(
    z.object({ modelId: z.string(), outputModalities: z.array(z.string()).nullish(), inferenceTypesSupported: z.array(z.string()).nullish() }),
  ),
});
