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
type WireChunk = z.infer<typeof chunkSchema>;

/**
 * The chunks nearly every stream is made of (a role, a text fragment, a finish reason), checked
 * by hand: the answer to `chunkSchema` without building zod's copy. Running zod on each chunk
 * cost about 15 µs of CPU per streamed request in the bench (docs/benchmarks.md, issue 24);
 * anything else (tool calls, usage, array content, a bad type) goes through the schema,
 * whose verdict and message stand.
 */
export function plainChunk(json: unknown): WireChunk | undefined {
  if (!isRecord(json) || !nullish(json.usage)) return undefined;
  const choices = json.choices;
  if (nullish(choices)) return json as WireChunk;
  if (!Array.isArray(choices)) return undefined;
  for (const c of choices) if (!plainChoice(c)) return undefined;
  return json as WireChunk;
}

function plainChoice(c: unknown): boolean {
  if (!isRecord(c)) return false;
  if (c.index !== undefined && !(Number.isInteger(c.index) && (c.index as number) >= 0)) return false;
  if (!nullish(c.finish_reason) && typeof c.finish_reason !== "string") return false;
  const d = c.delta;
  if (nullish(d)) return true;
  return isRecord(d) && nullish(d.tool_calls) && stringish(d.content) && stringish(d.refusal);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const nullish = (v: unknown) => v === undefined || v === null;
const stringish = (v: unknown) => nullish(v) || typeof v === "string";

export const modelListSchema = z.object({ data: z.array(z.object({ id: z.string(), context_length: z.number().nullish() })) });

/** Each embedding is checked by the core in one pass (finite float32, lengths), not here per number. */
export const embeddingsSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.unknown().optional() })),
  usage: z.object({ prompt_tokens: z.number().optional() }).nullish(),
});
