/**
 * The fields this adapter reads from an OpenAI-format server's answers, as zod schemas: a
 * `chat.completion`, a `chat.completion.chunk`, the model list and an embeddings answer. Other
 * fields pass unread (presets lift theirs before these run). An answer that breaks them is a
 * 502 upstream_invalid_response (docs/limits.md). Shapes as vercel/ai's
 * openai-chat-api.ts and openai-compatible-chat-language-model.ts read them.
 */
import { z } from "zod";
import { knownTypes } from "../../src/plugin/contract.js";

const count = z.number().nullish();

/**
 * `prompt_tokens` absent: no usage. Present, it must be a number; integers and bounds are the
 * core's check (src/billing/usage-check.ts), which sees every provider's counts.
 */
const usageSchema = z.object({
  prompt_tokens: z.number().optional(),
  completion_tokens: count,
  prompt_tokens_details: z.object({ cached_tokens: count }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: count }).nullish(),
});
export type WireUsage = z.infer<typeof usageSchema>;

/** A string, or (Mistral's magistral models) chunks of which `text` ones are the answer. */
const contentSchema = z.union([z.string(), z.array(knownTypes([z.object({ type: z.literal("text"), text: z.string() })]))]).nullish();
export type WireContent = z.infer<typeof contentSchema>;

const reason = z.string().nullish();

export const completionSchema = z.object({
  id: z.string().nullish(),
  choices: z.array(
    z.object({
      index: z.number().int().nonnegative().optional(),
      message: z.object({
        content: contentSchema,
        refusal: z.string().nullish(),
        tool_calls: z.array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string().nullish() }) })).nullish(),
      }),
      finish_reason: reason,
      logprobs: z.unknown().optional(),
    }),
  ),
  usage: usageSchema.nullish(),
});

const toolDelta = z.object({
  index: z.number().int().nonnegative().optional(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});
export type WireToolDelta = z.infer<typeof toolDelta>;

export const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().int().nonnegative().optional(),
        delta: z.object({ content: contentSchema, refusal: z.string().nullish(), tool_calls: z.array(toolDelta).nullish() }).nullish(),
        finish_reason: reason,
        logprobs: z.unknown().optional(),
      }),
    )
    .nullish(),
  usage: usageSchema.nullish(),
});
export type WireChunkChoice = NonNullable<z.infer<typeof chunkSchema>["choices"]>[number];

export const modelListSchema = z.object({ data: z.array(z.object({ id: z.string(), context_length: z.number().nullish() })) });

/** Each embedding is checked by the core in one pass (finite float32, lengths), not here per number. */
export const embeddingsSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.unknown().optional() })),
  usage: z.object({ prompt_tokens: z.number().optional() }).nullish(),
});
