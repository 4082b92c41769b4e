/**
 * The fields this preset reads beyond the OpenAI format (../openai-compatible/answer-schema.ts):
 * its model list. A list that breaks it is an invalid answer (docs/limits.md).
 */
import { z } from "zod";

export const groqModelList = z.object({
  data: z.array(z.object({ id: z.string(), context_window: z.number().nullish(), max_completion_tokens: z.number().nullish() })),
});
