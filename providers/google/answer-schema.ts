/**
 * The fields this adapter reads from Gemini's answers, as zod schemas: a
 * GenerateContentResponse (whole, or one stream chunk), the model list and a
 * batchEmbedContents answer. Parts have no type field: the kinds it does not read (inline
 * data, code execution) pass as parts without text or functionCall. An answer that breaks
 * them is a 502 upstream_invalid_response (docs/limits.md). Shapes as vercel/ai's
 * google-generative-ai-language-model.ts reads them.
 */
import { z } from "zod";

const count = z.number().nullish();

const usageSchema = z.object({
  promptTokenCount: count,
  candidatesTokenCount: count,
  thoughtsTokenCount: count,
  toolUsePromptTokenCount: count,
  cachedContentTokenCount: count,
});
export type WireUsage = z.infer<typeof usageSchema>;

const part = z.object({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  functionCall: z.object({ id: z.string().nullish(), name: z.string(), args: z.unknown().optional() }).nullish(),
});
export type WirePart = z.infer<typeof part>;

const candidate = z.object({
  index: z.number().int().nonnegative().nullish(),
  content: z.object({ parts: z.array(part).nullish() }).nullish(),
  finishReason: z.string().nullish(),
  /** Grounding with Google Search: the queries it ran, billed per query or per grounded prompt (docs/billing.md). */
  groundingMetadata: z.object({ webSearchQueries: z.array(z.unknown()).nullish() }).nullish(),
});
export type WireCandidate = z.infer<typeof candidate>;

/** At least one of the three: proto3 JSON omits empty fields, but an answer of none is not Gemini's. */
export const responseSchema = z
  .object({
    candidates: z.array(candidate).nullish(),
    promptFeedback: z.object({ blockReason: z.string().nullish() }).nullish(),
    usageMetadata: usageSchema.nullish(),
    responseId: z.string().nullish(),
  })
  .refine((r) => r.candidates != null || r.promptFeedback != null || r.usageMetadata != null, "not a GenerateContentResponse");
export type WireResponse = z.infer<typeof responseSchema>;

/** proto3 JSON omits an empty list. */
export const modelListSchema = z.object({
  models: z
    .array(
      z.object({
        name: z.string(),
        supportedGenerationMethods: z.array(z.string()).nullish(),
        inputTokenLimit: count,
        outputTokenLimit: count,
      }),
    )
    .nullish(),
});

/** Each vector is checked by the core in one pass (finite float32, lengths), not here per number. */
export const embeddingsSchema = z.object({ embeddings: z.array(z.object({ values: z.unknown().optional() })) });
